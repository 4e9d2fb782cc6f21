/**
 * Issue [R] defect 5: shot-list `inputs` accepted absolute and `../` paths, and the file was
 * uploaded to a workstation the caller registered (`/etc/passwd` and `shotfarm.sqlite` reached a
 * fake ComfyUI). Now an input resolves only inside the shot list's own folder, by its real path,
 * and never to the farm's database; over `serve` that folder is the server's import folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { startServer } from '../../electron/server/server.js';
import { engineFor, jobsDigest, RESOURCES, tableCounts } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const PLATE = `${RESOURCES}samples/plates/sh010.png`;

function list(inputs: string[]): string {
  return JSON.stringify(
    {
      project: 'P',
      episode: 'E',
      shots: inputs.map((path, i) => ({
        id: `sh${i + 1}`,
        stage: 'keyframe',
        template: 'keyframe-img2img',
        inputs: { image: path },
      })),
    },
    null,
    1,
  );
}

test('inputs outside the shot list folder are refused with words that say why; a plate inside it is taken by its real path', async (ctx) => {
  const t = await engineFor(ctx);
  const folder = tempDirFor(ctx);
  const outside = tempDirFor(ctx);
  mkdirSync(join(folder, 'plates'));
  copyFileSync(PLATE, join(folder, 'plates', 'sh010.png'));
  copyFileSync(PLATE, join(outside, 'secret.png'));
  symlinkSync(join(outside, 'secret.png'), join(folder, 'plates', 'link-out.png'));
  symlinkSync(join(folder, 'plates', 'sh010.png'), join(folder, 'link-in.png'));
  symlinkSync(t.engine.dbFile, join(folder, 'db.png'));
  mkdirSync(join(folder, 'a-folder.png'));

  const cases: [string, RegExp | null][] = [
    ['plates/sh010.png', null],
    ['link-in.png', null],
    ['/etc/passwd', /is an absolute path; inputs are given relative to the shot list's folder/],
    ['C:\\Windows\\win.ini', /is an absolute path/],
    ['\\\\server\\share\\x.png', /is an absolute path/],
    ['../secret.png', /climbs out of the shot list's folder with "\.\."/],
    ['plates/../../secret.png', /climbs out/],
    ['plates\\..\\..\\secret.png', /climbs out/],
    ['plates/link-out.png', /is a link to a file outside the shot list's folder/],
    ['db.png', /is the farm's own database, which is never an input/],
    ['a-folder.png', /is not a file/],
    ['plates/missing.png', /does not exist or cannot be read/],
  ];
  const before = { counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) };
  const preview = await t.engine.call('import.preview', {
    fileName: 'l.json',
    content: list(cases.map((c) => c[0])),
    baseDir: folder,
  });
  for (const [i, [path, words]] of cases.entries()) {
    const row = preview.rows[i]!;
    if (!words) {
      assert.equal(row.status, 'new', `${path}: ${row.errors.join('; ')}`);
      continue;
    }
    assert.equal(row.status, 'error', path);
    assert.match(row.errors.join('; '), words, path);
    assert.match(
      row.errors[0] ?? '',
      new RegExp(`^l\\.json, row ${i + 1} \\(line \\d+\\): input file`),
      'the message names the file and the row',
    );
  }
  assert.deepEqual({ counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) }, before, 'a preview writes nothing');
  const result = await t.engine.call('import.commit', { previewId: preview.previewId });
  assert.equal(result.imported, 2);
  const stored = t.engine.db.all('SELECT inputs_json FROM jobs ORDER BY shot') as { inputs_json: string }[];
  assert.deepEqual(
    stored.map((r) => JSON.parse(r.inputs_json).image),
    [join(folder, 'plates', 'sh010.png'), join(folder, 'plates', 'sh010.png')],
    'the real path is stored: a link swapped later cannot redirect the upload',
  );
});

test('without a known folder no input resolves (not against the working folder)', async (ctx) => {
  const t = await engineFor(ctx);
  const preview = await t.engine.call('import.preview', {
    fileName: 'dropped.json',
    content: list(['resources/samples/plates/sh010.png']),
  });
  assert.equal(preview.rows[0]?.status, 'error');
  assert.match(
    preview.rows[0]?.errors[0] ?? '',
    /the shot list's folder is not known here .*Import… in the desktop app or `shotfarm import FILE`/,
  );
});

test('over serve, a token holder cannot reach the database or any file outside the import folder', async (ctx) => {
  const t = await engineFor(ctx);
  const call = async (url: string, method: string, input: unknown) => {
    const res = await fetch(new URL(`/api/call/${method}`, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return (await res.json()) as {
      ok: boolean;
      result: { rows: { status: string; errors: string[] }[]; previewId: string; counts: { new: number } };
    };
  };
  const hostile = ['/etc/passwd', '../../../../etc/passwd', 'shotfarm.sqlite', 'shotfarm.sqlite-wal']; // hostile-path: the traversal under test
  // The page cannot choose the folder: by default serve has none (uploads only)…
  const plain = await startServer({ engine: t.engine, port: 0 });
  ctx.after(() => plain.close());
  const none = await call(plain.url, 'import.preview', { fileName: 'evil.json', content: list(hostile), baseDir: '/' });
  assert.equal(none.ok, true);
  const noneErrors = none.result.rows.map((r) => r.errors.join('; '));
  assert.match(noneErrors[0]!, /is an absolute path/);
  assert.match(noneErrors[1]!, /climbs out/);
  for (const e of noneErrors.slice(2)) assert.match(e, /the shot list's folder is not known here/);
  // …and a host cannot name the data folder (or a folder in it) as its inputs folder.
  await assert.rejects(
    startServer({ engine: t.engine, port: 0, importBaseDir: dirname(t.engine.dbFile) }),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError && err.code === 'bad_input', String(err));
      assert.match(err.message, /^--inputs: the inputs folder .* is inside the farm's own folder/);
      return true;
    },
  );
  // A link in an inputs folder into the data folder, or a file by a secret's name, is refused by real path or name.
  const inputs = tempDirFor(ctx);
  copyFileSync(PLATE, join(dirname(t.engine.dbFile), 'notes.png'));
  symlinkSync(join(dirname(t.engine.dbFile), 'notes.png'), join(inputs, 'notes.png'));
  copyFileSync(PLATE, join(inputs, 'engine.lock.json'));
  const named = await startServer({ engine: t.engine, port: 0, importBaseDir: inputs });
  ctx.after(() => named.close());
  const answer = await call(named.url, 'import.preview', {
    fileName: 'evil.json',
    content: list(['notes.png', 'engine.lock.json']),
    baseDir: '/',
  });
  const errors = answer.result.rows.map((r) => r.errors.join('; '));
  assert.match(
    errors[0]!,
    /is inside the farm's own folders \(its data folder, uploads store, releases or outputs\), which are never an input/,
  );
  assert.match(errors[1]!, /is one of the farm's own lock, key or database files, which are never an input/);
  assert.equal(answer.result.counts.new, 0);
  assert.equal(tableCounts(t.engine).jobs, 0);
});
