/**
 * Issue [R]: a zero-length `shotfarm.sqlite` (a copy or restore gone wrong) was silently taken as a
 * new store — the farm started afresh and forgot every job. Now it is refused with a sentence
 * saying what to do, exit 6 from the CLI, and the file is left as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { Engine } from '../../electron/engine/engine.js';
import { DB_FILE_NAME } from '../../electron/engine/store/database.js';
import { runCli } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp-dir.js';

test('a zero-length database file is refused, not taken as a new farm, and is left untouched', async (ctx) => {
  const dir = tempDirFor(ctx);
  const file = join(dir, DB_FILE_NAME);
  writeFileSync(file, '');
  assert.throws(
    () => new Engine({ dataDir: dir, log: () => undefined }),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError, String(err));
      assert.equal(err.code, 'storage');
      assert.match(
        err.message,
        /is empty \(0 bytes\), so it is not a Shotfarm store: .* Restore it from a backup; or, to start a new farm in this folder, remove the empty file\./,
      );
      return true;
    },
  );
  const cli = await runCli(dir, 'status');
  assert.equal(cli.code, EXIT.storage, cli.out + cli.err);
  assert.match(cli.err, /is empty \(0 bytes\)/);
  assert.equal(statSync(file).size, 0, 'nothing was written to it');
});

test('a new data folder still gets a new store', async (ctx) => {
  const dir = tempDirFor(ctx);
  const e = new Engine({ dataDir: dir, log: () => undefined });
  ctx.after(() => e.close());
  assert.ok(statSync(join(dir, DB_FILE_NAME)).size > 0);
  assert.equal((await e.call('jobs.list', {})).rows.length, 0);
});
