/**
 * Bad input gets a clear error and loses nothing (issue [A]): each case goes through the CLI, gets
 * a message naming the file and the row or line, a non-zero exit, and leaves the jobs table
 * byte-for-byte unchanged.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, closeSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../electron/cli/main.js';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { Engine } from '../../electron/engine/engine.js';
import { jobsDigest, RESOURCES, tableCounts } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const tmp = makeTempDir('shotfarm-bad-');
const data = join(tmp.path, 'data');

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['--data', data, ...args], { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function snapshot(): Promise<{ digest: string; counts: Record<string, number> }> {
  const e = new Engine({ dataDir: data, log: () => undefined });
  try {
    return { digest: jobsDigest(e), counts: tableCounts(e) };
  } finally {
    await e.close();
  }
}

before(async () => {
  await cli('templates', 'add', join(RESOURCES, 'templates/keyframe-img2img.json'));
  // Some jobs already stored, so "unchanged" means more than "still empty".
  await cli('import', join(RESOURCES, 'samples/shot_list.json'));
});
after(() => tmp.cleanup());

function file(name: string, content: string | Buffer): string {
  const p = join(tmp.path, name);
  writeFileSync(p, content);
  return p;
}

const cases: { name: string; make: () => string; args?: string[]; message: RegExp }[] = [
  {
    name: 'bad JSON',
    make: () =>
      file(
        'broken.json',
        '{\n  "project": "P",\n  "episode": "E",\n  "shots": [\n    {"id": "sh1" "stage": "keyframe"}\n  ]\n}',
      ),
    message: /broken\.json is not valid JSON at line 5, column 18/,
  },
  {
    name: 'a CSV without a shot column',
    make: () => file('noshot.csv', 'Sequence,Description\nsq01,hello\n'),
    message: /noshot\.csv has no shot column\. Name one "Shot", "Shot Code" \(ShotGrid\) or "Name" \(Kitsu\)/,
  },
  {
    name: 'a CSV column for a parameter the template does not have',
    make: () => file('unknowncol.csv', 'Shot,param:cfg_scale\nsh900,7\n'),
    args: ['--project', 'P', '--episode', 'E', '--stage', 'keyframe', '--template', 'keyframe-img2img'],
    message: /unknowncol\.csv, row 1 \(line 2\): parameter "cfg_scale" is not defined by template "keyframe-img2img"/,
  },
  {
    name: 'an unknown template',
    make: () => file('unknowntpl.csv', 'Shot,Template\nsh901,ghost\n'),
    args: ['--project', 'P', '--episode', 'E', '--stage', 'keyframe'],
    message: /unknowntpl\.csv, row 1 \(line 2\): template "ghost" is not registered/,
  },
  {
    name: 'a parameter the template lacks (JSON)',
    make: () =>
      file(
        'badparam.json',
        JSON.stringify(
          {
            project: 'P',
            episode: 'E',
            shots: [{ id: 'sh902', stage: 'keyframe', template: 'keyframe-img2img', parameters: { sampler: 'euler' } }],
          },
          null,
          2,
        ),
      ),
    message: /badparam\.json, row 1 \(line 6\): parameter "sampler" is not defined/,
  },
  {
    name: 'an empty file',
    make: () => file('empty.csv', ''),
    message: /empty\.csv is empty/,
  },
  {
    name: 'binary garbage',
    make: () => file('garbage.csv', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))),
    message: /garbage\.csv does not look like a shot list: it contains binary data/,
  },
  {
    name: 'a 50 MB file',
    make: () => {
      const p = join(tmp.path, 'huge.csv');
      const fd = openSync(p, 'w');
      ftruncateSync(fd, 50 * 1024 * 1024);
      closeSync(fd);
      return p;
    },
    message: /huge\.csv is 50\.0 MB; shot lists over 32 MB are refused/,
  },
];

for (const c of cases) {
  test(`${c.name}: a clear message, a non-zero exit, the jobs table unchanged`, async () => {
    const path = c.make();
    const before = await snapshot();
    const r = await cli('import', path, ...(c.args ?? []));
    assert.notEqual(r.code, EXIT.ok);
    assert.match(`${r.out}\n${r.err}`, c.message);
    assert.deepEqual(await snapshot(), before);
  });
}

test('duplicate shot ids in one file: the second row is named as a duplicate of the first', async () => {
  const before = await snapshot();
  const p = file(
    'dupes2.json',
    JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [
        { id: 'sh904', stage: 'keyframe', template: 'keyframe-img2img', parameters: { sampler: 'x' } },
        { id: 'sh904', stage: 'keyframe', template: 'keyframe-img2img', parameters: { cfg: 1 } },
      ],
    }),
  );
  const r = await cli('import', p, '--dry-run');
  assert.equal(r.code, EXIT.badInput);
  assert.deepEqual(await snapshot(), before);
  const ok = file(
    'dupes3.csv',
    'Shot,Stage,Template\nsh905,keyframe,keyframe-img2img\nsh905,keyframe,keyframe-img2img\n',
  );
  const d = await cli('import', ok, '--project', 'P', '--episode', 'E', '--dry-run');
  assert.equal(d.code, EXIT.badInput);
  assert.match(d.out, /2 +3 +E\/sh905 .*error +1 error \(below\)/);
  assert.match(d.out, /dupes3\.csv, row 2 \(line 3\): same shot, stage and take as row 1/);
});

test('a generated 10,000-shot list imports through the CLI, status counts it, and a second import adds 0', async () => {
  const rows = ['Shot,Sequence,Description'];
  for (let i = 0; i < 10_000; i++)
    rows.push(`sh${String(i).padStart(5, '0')},sq${Math.floor(i / 100)},shot number ${i}`);
  const p = file('big.csv', rows.join('\n'));
  const args = ['--project', 'Big', '--episode', 'ep1', '--stage', 'keyframe', '--template', 'keyframe-img2img'];
  const first = await cli('import', p, ...args);
  assert.equal(first.code, EXIT.ok, first.err);
  assert.match(first.out, /Imported 10000 job\(s\); 0 already imported; 0 row\(s\) rejected/);
  const status = JSON.parse((await cli('--json', 'status')).out);
  assert.equal(status.jobsByState.queued, 10_000 + 3);
  const second = await cli('import', p, ...args);
  assert.equal(second.code, EXIT.ok);
  assert.match(second.out, /Nothing new: every row was already imported/);
});
