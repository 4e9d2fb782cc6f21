/**
 * `export-db` / `import-db`: a consistent copy while the engine keeps its database open, never over
 * an existing file; importing it into a fresh data folder brings every job, event and person; a
 * folder that has jobs is refused unless --replace; a file that is not a Shotfarm database, a newer
 * Shotfarm's database and a folder whose farm is running are refused in words and change nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../electron/engine/engine.js';
import { runCli } from '../helpers/cli.js';
import { importText, jobsDigest, makeEngine, tableCounts } from '../helpers/engine.js';
import { shotList } from '../helpers/farm-with-history.js';
import { tempDirFor } from '../helpers/temp-dir.js';

test('export-db copies a live database; import-db into a fresh folder brings it all, migrated', async (ctx) => {
  const solo = await makeEngine();
  ctx.after(solo.close);
  await importText(solo.engine, 'a.json', shotList('ep1', 4));
  await solo.engine.call('users.add', { name: 'mira', role: 'artist' });
  const out = join(tempDirFor(ctx), 'solo.sqlite');
  // The solo engine stays open (its farm could be running): the copy is SQLite's online backup.
  const exported = await runCli(solo.dir, 'export-db', '--out', out);
  assert.equal(exported.code, 0, exported.err);
  assert.match(exported.out, /Database copied to .*solo\.sqlite/);
  const again = await runCli(solo.dir, 'export-db', '--out', out);
  assert.equal(again.code, 5);
  assert.match(again.err, /exists already; export-db never overwrites a file/);

  const studio = tempDirFor(ctx);
  const imported = await runCli(studio, 'import-db', out);
  assert.equal(imported.code, 0, imported.err);
  assert.match(imported.out, /Imported .*solo\.sqlite: 4 jobs/);
  const e = new Engine({ dataDir: studio });
  try {
    assert.deepEqual(tableCounts(e), tableCounts(solo.engine));
    assert.equal(jobsDigest(e), jobsDigest(solo.engine));
    assert.deepEqual(
      (await e.call('users.list', {})).map((p) => p.name),
      ['mira'],
    );
  } finally {
    await e.close();
  }
});

test('import-db refuses a folder with jobs unless --replace, and replaces them with it', async (ctx) => {
  const a = await makeEngine();
  ctx.after(a.close);
  await importText(a.engine, 'a.json', shotList('ep-a', 2));
  const file = join(tempDirFor(ctx), 'a.sqlite');
  assert.equal((await runCli(a.dir, 'export-db', '--out', file)).code, 0);

  const b = await makeEngine();
  await importText(b.engine, 'b.json', shotList('ep-b', 3));
  const before = jobsDigest(b.engine);
  await b.engine.close();
  const refused = await runCli(b.dir, 'import-db', file);
  assert.equal(refused.code, 5);
  assert.match(refused.err, /already has 3 jobs; pass --replace/);
  const replaced = await runCli(b.dir, 'import-db', file, '--replace');
  assert.equal(replaced.code, 0, replaced.err);
  assert.match(replaced.out, /2 jobs \(the previous jobs were replaced\)/);
  const e = new Engine({ dataDir: b.dir });
  try {
    assert.notEqual(jobsDigest(e), before);
    assert.equal(jobsDigest(e), jobsDigest(a.engine));
  } finally {
    await e.close();
  }
});

test('import-db refuses what is not a Shotfarm database, a newer schema, and a folder whose farm runs; nothing changes', async (ctx) => {
  const dir = tempDirFor(ctx);
  const target = tempDirFor(ctx);
  const junk = join(dir, 'notes.sqlite');
  writeFileSync(junk, 'these are not the pages you are looking for'.repeat(200));
  let r = await runCli(target, 'import-db', junk);
  assert.equal(r.code, 3);
  assert.match(r.err, /is not a SQLite database, so not a Shotfarm database/);

  const other = join(dir, 'other.sqlite');
  const o = new Database(other);
  o.exec('CREATE TABLE photos (id INTEGER)');
  o.close();
  r = await runCli(target, 'import-db', other);
  assert.equal(r.code, 3);
  assert.match(r.err, /a SQLite database but not a Shotfarm one/);

  const src = await makeEngine();
  ctx.after(src.close);
  await importText(src.engine, 'a.json', shotList('ep1', 1));
  const newer = join(dir, 'newer.sqlite');
  assert.equal((await runCli(src.dir, 'export-db', '--out', newer)).code, 0);
  const n = new Database(newer);
  n.prepare("INSERT INTO schema_migrations (id, name, sha256, applied_at) VALUES (999, '0999-future', 'x', 0)").run();
  n.close();
  r = await runCli(target, 'import-db', newer);
  assert.equal(r.code, 3);
  assert.match(r.err, /written by a newer Shotfarm/);

  // A farm running on the folder (`serve`'s engine holds the data folder's lock, lock/engine-lock.ts) refuses it.
  const good = join(dir, 'good.sqlite');
  assert.equal((await runCli(src.dir, 'export-db', '--out', good)).code, 0);
  const farm = new Engine({ dataDir: target, kind: 'serve' });
  try {
    r = await runCli(target, 'import-db', good);
  } finally {
    await farm.close();
  }
  assert.equal(r.code, 5);
  assert.match(r.err, /A farm is running on .* \(`shotfarm serve` \(pid \d+ .*\); stop it/);
  const e = new Engine({ dataDir: target });
  try {
    assert.equal((await e.call('jobs.list', {})).total, 0, 'nothing was imported by any refused attempt');
  } finally {
    await e.close();
  }
  r = await runCli(target, 'import-db', good);
  assert.equal(r.code, 0, r.err);
});
