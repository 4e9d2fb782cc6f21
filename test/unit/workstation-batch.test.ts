import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  entriesOfRecord,
  expandRanges,
  MAX_BATCH,
  nameEntries,
  nameFromHost,
  parseWorkstationJson,
  parseWorkstationList,
  problemLines,
} from '../../shared/workstation-batch.js';
import { parseWorkstationCsv } from '../../electron/cli/workers-batch.js';

test('a range stands for one URL per number, zero-padded when its first number is', () => {
  assert.deepEqual(expandRanges('http://gpu-[01-03]:8188'), {
    urls: ['http://gpu-01:8188', 'http://gpu-02:8188', 'http://gpu-03:8188'],
  });
  assert.deepEqual(expandRanges('http://gpu-[8-10]:8188'), {
    urls: ['http://gpu-8:8188', 'http://gpu-9:8188', 'http://gpu-10:8188'],
  });
  assert.deepEqual(expandRanges('http://gpu-[001-2]:8188'), { urls: ['http://gpu-001:8188', 'http://gpu-002:8188'] });
  assert.deepEqual(expandRanges('http://10.0.[1-2].[10-11]:8188'), {
    urls: ['http://10.0.1.10:8188', 'http://10.0.1.11:8188', 'http://10.0.2.10:8188', 'http://10.0.2.11:8188'],
  });
  assert.deepEqual(expandRanges('http://gpu-01:[8188-8189]'), { urls: ['http://gpu-01:8188', 'http://gpu-01:8189'] });
  assert.deepEqual(
    expandRanges('http://[::1]:8188'),
    { urls: ['http://[::1]:8188'] },
    'an IPv6 address is not a range',
  );
  assert.deepEqual(expandRanges('http://gpu-[40-01]:8188'), {
    problem: 'the range [40-01] counts down; write it from low to high, e.g. [01-40]',
  });
  assert.match(
    (expandRanges('http://10.0.[0-99].[0-99]:8188') as { problem: string }).problem,
    new RegExp(`more than ${MAX_BATCH} workstations`),
  );
});

test('names come from hosts: the first label of a host name, an address whole, host-port when a host comes twice or is taken', () => {
  assert.equal(nameFromHost('http://gpu-07.render.lan:8188'), 'gpu-07');
  assert.equal(nameFromHost('http://10.0.0.21:8188'), '10.0.0.21');
  assert.equal(nameFromHost('http://[::1]:8188'), '::1');
  const e = (source: string, url: string, name?: string) => ({ source, url, ...(name ? { name } : {}) });
  const r = nameEntries(
    [
      e('line 1', 'http://gpu-01:8188'),
      e('line 2', 'http://gpu-02:8188'),
      e('line 3', 'http://gpu-02:8189'),
      e('line 4', 'http://gpu-03.lan:8188'),
      e('line 5', 'https://gpu-04'),
      e('line 6', 'http://x:1', 'spare'),
    ],
    new Set(['gpu-03', 'gpu-04']),
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.entries.map((x) => x.name),
    ['gpu-01', 'gpu-02-8188', 'gpu-02-8189', 'gpu-03-8188', 'gpu-04-443', 'spare'],
  );
});

test('a name taken by a registered workstation or by another line is a problem at that line', () => {
  const r = nameEntries(
    [
      { source: 'line 1', url: 'http://a:1', name: 'gpu-01' },
      { source: 'line 2', url: 'http://b:1', name: 'gpu-01' },
      { source: 'line 3', url: 'http://c:1', name: 'old' },
      { source: 'line 4', url: 'http://gpu-01:1' },
    ],
    new Set(['old', 'gpu-01-1']),
  );
  assert.deepEqual(problemLines(r.problems), [
    'line 2: the name "gpu-01" is also on line 1',
    'line 3: a workstation is already named "old"',
    'line 4: the name "gpu-01-1" made from its host is taken by a registered workstation; give this one a name',
  ]);
});

test('a pasted list takes [NAME] URL [TAGS] per line, skips blanks and comments, and names every bad line', () => {
  const r = parseWorkstationList([
    '# the render room',
    'http://gpu-[01-02]:8188 img2img,i2v_video',
    '',
    'spare http://10.0.0.99:8188',
    'two words http://x:1',
    'gpu-09',
    'http://gpu-[05-06]:8188',
    'named http://gpu-[07-08]:8188',
  ]);
  assert.deepEqual(
    r.entries.map((e) => [e.source, e.name ?? null, e.url, e.tags]),
    [
      ['line 2, http://gpu-01:8188', null, 'http://gpu-01:8188', ['img2img', 'i2v_video']],
      ['line 2, http://gpu-02:8188', null, 'http://gpu-02:8188', ['img2img', 'i2v_video']],
      ['line 4', 'spare', 'http://10.0.0.99:8188', []],
      ['line 7, http://gpu-05:8188', null, 'http://gpu-05:8188', []],
      ['line 7, http://gpu-06:8188', null, 'http://gpu-06:8188', []],
    ],
  );
  assert.deepEqual(problemLines(r.problems), [
    'line 5: "two words" is more than one name; write [NAME] URL [TAGS] (a name has no spaces)',
    'line 6: no URL in "gpu-09"; write [NAME] URL [TAGS], e.g. gpu-01 http://10.0.0.21:8188 img2img',
    'line 8: a range makes one workstation per number, each named from its host; leave the name "named" out',
  ]);
});

test("a record's fields: tags, vram and concurrency in CSV text or JSON values, strict numbers, unknown columns refused", () => {
  const ok = entriesOfRecord('line 2', {
    name: 'gpu-01',
    url: 'http://gpu-01:8188',
    tags: 'a;b',
    vram: 'motion=20;keyframe=12.5',
    concurrency: '2',
  });
  assert.deepEqual(ok, {
    entries: [
      {
        source: 'line 2',
        name: 'gpu-01',
        url: 'http://gpu-01:8188',
        tags: ['a', 'b'],
        maxConcurrency: 2,
        vramOverrides: { motion: 20, keyframe: 12.5 },
      },
    ],
    problems: [],
  });
  const json = entriesOfRecord(
    'line 3',
    { url: 'http://gpu-02:8188', tags: ['x'], vram: { motion: 24 }, concurrency: 1 },
    { tags: ['all'] },
  );
  assert.deepEqual(json.entries[0], {
    source: 'line 3',
    url: 'http://gpu-02:8188',
    tags: ['all', 'x'],
    maxConcurrency: 1,
    vramOverrides: { motion: 24 },
  });
  const bad = entriesOfRecord('line 4', { url: 'gpu-03:8188', concurrency: '0x10', vram: 'motion=1e3', colour: 'red' });
  assert.deepEqual(problemLines(bad.problems), [
    'line 4: unknown field "colour"; the fields are name, url, tags, vram, concurrency',
    'line 4: vram takes STAGE=GB pairs with GB a number above 0, e.g. motion=20;keyframe=12; got "motion=1e3"',
    'line 4: concurrency must be a whole number from 1 to 16 (prompts at once); got "0x10"',
    'line 4: the URL "gpu-03:8188" must be an http:// or https:// URL such as http://gpu-01:8188',
  ]);
  assert.deepEqual(bad.entries, []);
  assert.deepEqual(problemLines(entriesOfRecord('line 5', { name: 'a/b', url: '' }).problems), [
    'line 5: no URL; each workstation needs its ComfyUI URL, e.g. http://gpu-01:8188',
    'line 5: the name "a/b" must not contain slashes or control characters',
  ]);
});

test("a CSV file's rows are named by their lines; a JSON file's entries by the line each starts on", () => {
  const csv = parseWorkstationCsv(
    '\uFEFFname,url,tags\n# spare ones later\ngpu-01,http://gpu-01:8188,"a,b"\n\n,http://gpu-[02-03]:8188,\nbad,nope,\n',
  );
  assert.deepEqual(
    csv.entries.map((e) => [e.source, e.name ?? null, e.tags]),
    [
      ['line 3', 'gpu-01', ['a', 'b']],
      ['line 5, http://gpu-02:8188', null, []],
      ['line 5, http://gpu-03:8188', null, []],
    ],
  );
  assert.deepEqual(problemLines(csv.problems), [
    'line 6: the URL "nope" must be an http:// or https:// URL such as http://gpu-01:8188',
  ]);
  assert.match(
    problemLines(parseWorkstationCsv('name,url\n"gpu,http://x:1\n').problems)[0] ?? '',
    /^the file: is not readable CSV/,
  );

  const json = parseWorkstationJson(
    [
      '{"workstations": [',
      '  {"name": "gpu-01", "url": "http://gpu-01:8188", "tags": ["a"]},',
      '  {',
      '    "url": "nope"',
      '  },',
      '  3',
      ']}',
    ].join('\n'),
  );
  assert.deepEqual(
    json.entries.map((e) => [e.source, e.name]),
    [['line 2', 'gpu-01']],
  );
  assert.deepEqual(problemLines(json.problems), [
    'line 3: the URL "nope" must be an http:// or https:// URL such as http://gpu-01:8188',
    'line 6: is not an object like {"url": "http://gpu-01:8188"}',
  ]);
  assert.deepEqual(problemLines(parseWorkstationJson('[{"url": "http://a:1"},\n {"url": "x"}]').problems), [
    'line 2: the URL "x" must be an http:// or https:// URL such as http://gpu-01:8188',
  ]);
  assert.match(
    problemLines(parseWorkstationJson('{"url": 1}').problems)[0] ?? '',
    /must be a JSON array of workstations/,
  );
  assert.match(problemLines(parseWorkstationJson('[').problems)[0] ?? '', /^the file: is not valid JSON/);
});

test('an empty list and one over the limit are refused', () => {
  assert.deepEqual(problemLines(parseWorkstationList(['', '# nothing']).problems), ['the list: holds no workstation']);
  const big = parseWorkstationList(['http://a-[0-600]:1', 'http://b-[0-600]:1']);
  assert.deepEqual(problemLines(big.problems), [`the list: holds 1202 workstations; at most ${MAX_BATCH} at once`]);
});
