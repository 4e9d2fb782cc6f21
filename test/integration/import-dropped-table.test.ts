/**
 * Issue 29 low item: an import on a store whose table was dropped outside Shotfarm exited 1 with
 * SQLite's bare "no such table: job_events". Now it is a storage error naming the database and the
 * missing table, with the storage exit code (6), and nothing is stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { RESOURCES } from '../helpers/engine.js';
import { runCli } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp-dir.js';

for (const table of ['job_events', 'jobs']) {
  test(`shotfarm import on a store whose ${table} table was dropped: storage words naming it, exit 6, nothing stored`, async (ctx) => {
    const dir = tempDirFor(ctx);
    assert.equal((await runCli(dir, 'templates', 'add', `${RESOURCES}templates/keyframe-img2img.json`)).code, 0);
    const db = new Database(join(dir, 'shotfarm.sqlite'));
    db.pragma('foreign_keys = OFF');
    db.exec(`DROP TABLE ${table}`);
    const shotsBefore = (db.prepare('SELECT COUNT(*) AS n FROM shots').get() as { n: number }).n;
    db.close();
    const r = await runCli(dir, 'import', `${RESOURCES}samples/shot_list.json`);
    assert.equal(r.code, EXIT.storage, r.err);
    assert.match(
      r.err,
      new RegExp(
        `The database .*shotfarm\\.sqlite is missing its table ${table} \\(changed outside Shotfarm\\): .* stored nothing\\. Restore it from a backup`,
      ),
    );
    const after = new Database(join(dir, 'shotfarm.sqlite'), { readonly: true });
    ctx.after(() => after.close());
    assert.equal((after.prepare('SELECT COUNT(*) AS n FROM shots').get() as { n: number }).n, shotsBefore);
  });
}
