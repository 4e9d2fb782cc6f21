/**
 * Issue [R] defect 9: a 130k-row CSV could not be imported through the CLI — the table printer's
 * `Math.max(...column)` overflowed the call stack (exit 1). The preview is now bounded: the first
 * rows, the errors up to a limit, the counts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { PREVIEW_ERRORS, PREVIEW_ROWS } from '../../electron/cli/import-command.js';
import { formatTable } from '../../electron/cli/table.js';
import { runCli } from '../helpers/cli.js';
import { engineFor } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const ROWS = 130_000;

test('formatTable takes 130,000 rows (no argument spread)', () => {
  const rows = Array.from({ length: ROWS }, (_, i) => [i, `sh${i}`]);
  const text = formatTable(['row', 'shot'], rows);
  assert.equal(text.split('\n').length, ROWS + 1);
});

test('a 130,000-row CSV previews through the CLI in a screenful: the first rows, bounded errors, the counts', {
  timeout: 120_000,
}, async (ctx) => {
  const t = await engineFor(ctx);
  const dir = tempDirFor(ctx);
  const lines = ['Shot,Sequence,Take'];
  // Every 1,000th row has a bad take, so errors are many but the output stays bounded.
  for (let i = 0; i < ROWS; i++)
    lines.push(`sh${String(i).padStart(6, '0')},sq${Math.floor(i / 1000)},${i % 1000 === 999 ? '0x10' : '1'}`);
  const file = join(dir, 'huge.csv');
  writeFileSync(file, lines.join('\n'));
  const r = await runCli(
    t.dir,
    'import',
    file,
    '--dry-run',
    '--project',
    'Big',
    '--episode',
    'ep1',
    '--stage',
    'keyframe',
    '--template',
    'keyframe-img2img',
  );
  assert.equal(r.code, EXIT.badInput, r.err);
  const out = r.out.split('\n');
  assert.ok(out.length < PREVIEW_ROWS + PREVIEW_ERRORS + 20, `${out.length} lines printed`);
  assert.match(r.out, new RegExp(`… and ${ROWS - PREVIEW_ROWS} more row\\(s\\) \\(--json lists them all\\)\\.`));
  assert.match(r.out, /huge\.csv, row 1000 \(line 1001\): take "0x10" must be a whole number/);
  assert.match(r.out, new RegExp(`… and ${ROWS / 1000 - PREVIEW_ERRORS} more row\\(s\\) with errors`));
  assert.match(r.out, new RegExp(`${ROWS - ROWS / 1000} new, 0 already imported, ${ROWS / 1000} with errors\\.`));
});
