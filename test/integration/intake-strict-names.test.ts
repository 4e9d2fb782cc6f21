/**
 * Issue [R] defect 9: CSV import accepted shot names `.` and `..` (outputs outside the shot's
 * folder), any length, takes like `1e308` and `0x10`, Windows-reserved names, C1 controls and the
 * RTL override; a `depends_on` cycle was stored and both jobs waited forever. CSV is now as strict
 * as JSON — one portable-name rule for project, episode, sequence, shot and stage — and every
 * refusal names the file and the row, with the store unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { engineFor, jobsDigest, tableCounts } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const DEFAULTS = ['--project', 'P', '--episode', 'E', '--stage', 'keyframe', '--template', 'keyframe-img2img'];

test('CSV rows with names no folder can have, or takes that are not whole numbers, are refused row by row, naming the file', async (ctx) => {
  const t = await engineFor(ctx);
  const dir = tempDirFor(ctx);
  const rows: [string, RegExp][] = [
    ['sh\u001b[2J,1', /shot "sh<U\+001B>\[2J" contains the invisible or control character U\+001B/],
    ['.,1', /shot "\." is not a name/],
    ['..,1', /shot "\.\." is not a name/],
    [`${'s'.repeat(300)},1`, /shot is 300 characters long; at most 80/],
    ['CON,1', /reserved device name on Windows/],
    ['sh010.,1', /ends with a dot/],
    ['sh:010,1', /contains ":"/],
    ['sh\u0085010,1', /U\+0085/],
    ['sh010\u202egnp,1', /U\+202E/],
    ['ok1,1e308', /take "1e308" must be a whole number from 1/],
    ['ok2,0x10', /take "0x10" must be a whole number/],
    ['ok3,1.5', /take "1\.5" must be a whole number/],
    ['ok4,-1', /take "-1" must be a whole number/],
    ['ok5,2', /^$/],
  ];
  const file = join(dir, 'tracker.csv');
  writeFileSync(file, ['Shot,Take', ...rows.map((r) => r[0])].join('\n'));
  const before = { counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) };
  const dry = await runCli(t.dir, 'import', file, '--dry-run', ...DEFAULTS);
  assert.equal(dry.code, EXIT.badInput);
  for (const [i, [, words]] of rows.entries()) {
    if (words.source === '^$') continue;
    assert.match(
      dry.out,
      new RegExp(`tracker\\.csv, row ${i + 1} \\(line ${i + 2}\\): .*${words.source}`),
      rows[i]![0],
    );
  }
  assert.match(dry.out, /1 new, 0 already imported, 13 with errors\./);
  assert.doesNotMatch(dry.out, /[\u001b\u0085\u202e]/, 'nothing in the output acts on the terminal');
  assert.deepEqual({ counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) }, before);

  // The same rules for the defaults given on the command line and for sequences.
  const seq = join(dir, 'seq.csv');
  writeFileSync(seq, 'Sequence,Shot\nsq..,sh010\n');
  assert.match(
    (await runCli(t.dir, 'import', seq, '--dry-run', ...DEFAULTS)).out,
    /seq\.csv, row 1 \(line 2\): sequence "sq\.\." ends with a dot/,
  );
  const reserved = await runCli(
    t.dir,
    'import',
    file,
    '--dry-run',
    '--project',
    'AUX',
    '--episode',
    'E',
    '--stage',
    'keyframe',
    '--template',
    'keyframe-img2img',
  );
  assert.equal(reserved.code, EXIT.badInput);
  assert.match(reserved.err, /mapping\.project: project "AUX" is a reserved device name on Windows/);
});

test('the JSON reader applies the same rule to ids, stages and depends_on', async (ctx) => {
  const t = await engineFor(ctx);
  const preview = await t.engine.call('import.preview', {
    fileName: 'l.json',
    content: JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [
        { id: '..', stage: 'keyframe', template: 'keyframe-img2img' },
        { id: 'sh020', stage: 'key\u202eframe', template: 'keyframe-img2img' },
        { id: 'sh030', stage: 'keyframe', template: 'keyframe-img2img', take: 1e308 },
      ],
    }),
  });
  assert.deepEqual(
    preview.rows.map((r) => r.status),
    ['error', 'error', 'error'],
  );
  assert.match(
    preview.rows[0]!.errors.join(),
    /l\.json, row 1 \(line \d+\): shots\[0\]\.id: shot "\.\." is not a name/,
  );
  assert.match(preview.rows[1]!.errors.join(), /U\+202E/);
  assert.match(preview.rows[2]!.errors.join(), /shots\[2\]\.take: must be a whole number/);
  await assert.rejects(
    t.engine.call('import.preview', {
      fileName: 'top.json',
      content: JSON.stringify({ project: 'CON', episode: 'E', shots: [] }),
    }),
    /top\.json is not a valid shot list:\n {2}project: project "CON" is a reserved device name/,
  );
});

test('a depends_on cycle is refused at preview (CSV and JSON), naming its stages; nothing waits forever', async (ctx) => {
  const t = await engineFor(ctx);
  const dir = tempDirFor(ctx);
  const csv = join(dir, 'loop.csv');
  writeFileSync(
    csv,
    'Shot,Stage,Depends On\nsh010,keyframe,motion\nsh010,motion,keyframe\nsh020,keyframe,\nsh020,motion,keyframe\n',
  );
  const before = { counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) };
  const r = await runCli(
    t.dir,
    'import',
    csv,
    '--dry-run',
    '--project',
    'P',
    '--episode',
    'E',
    '--template',
    'keyframe-img2img',
  );
  assert.equal(r.code, EXIT.badInput);
  assert.match(
    r.out,
    /loop\.csv, row 1 \(line 2\): depends_on makes a cycle between stages keyframe, motion of this shot: none of them could ever start/,
  );
  assert.match(r.out, /loop\.csv, row 2 \(line 3\): depends_on makes a cycle/);
  assert.match(r.out, /2 new, 0 already imported, 2 with errors\./, 'sh020, whose chain ends, is fine');
  assert.deepEqual({ counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) }, before);

  const three = await t.engine.call('import.preview', {
    fileName: 'l.json',
    content: JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [
        {
          id: 'sh1',
          stages: [
            { stage: 'a', template: 'keyframe-img2img', depends_on: 'c' },
            { stage: 'b', template: 'keyframe-img2img', depends_on: 'a' },
            { stage: 'c', template: 'keyframe-img2img', depends_on: 'b' },
            { stage: 'd', template: 'keyframe-img2img', depends_on: 'c' },
          ],
        },
      ],
    }),
  });
  assert.deepEqual(
    three.rows.map((x) => x.status),
    ['error', 'error', 'error', 'error'],
  );
  assert.match(three.rows[0]!.errors.join(), /cycle between stages a, b, c/);
  assert.match(
    three.rows[3]!.errors.join(),
    /depends on row 3 \(c\), which has errors/,
    'a stage waiting on the cycle is refused with it',
  );
});
