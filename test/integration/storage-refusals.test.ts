/**
 * Issue [R] defects 9 and 10, the store on disk: a zero-length shotfarm.sqlite was silently taken
 * as a new, empty store; a read-only data folder said nothing about being read-only; an import on
 * a full disk exited 1 without naming the file. Now each is a storage error (exit 6) whose words
 * name the database and say what to do — and nothing is lost. The full and read-only disks are
 * real: a small tmpfs in a private mount namespace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { DB_FILE_NAME } from '../../electron/engine/store/database.js';
import { runCli } from '../helpers/cli.js';
import { RESOURCES } from '../helpers/engine.js';
import { inPrivateMount, privateMountUnavailable } from '../helpers/private-mount.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const TEMPLATE = join(RESOURCES, 'templates/keyframe-img2img.json');

test('a zero-length database is refused with what to do, and left as it is', async (ctx) => {
  const data = tempDirFor(ctx);
  const file = join(data, DB_FILE_NAME);
  writeFileSync(file, '');
  for (const args of [['status'], ['import', join(RESOURCES, 'samples/shot_list.json')]]) {
    const r = await runCli(data, ...args);
    assert.equal(r.code, EXIT.storage, args.join(' '));
    assert.match(
      r.err,
      new RegExp(
        `The database ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is empty \\(0 bytes\\), so it is not a Shotfarm store`,
      ),
    );
    assert.match(r.err, /Restore it from a backup; or, to start a new farm in this folder, remove the empty file\./);
  }
  assert.equal(statSync(file).size, 0, 'not turned into a new store');
});

test('a read-only data folder says "read-only", naming the folder (exit 6)', { timeout: 60_000 }, async (ctx) => {
  const scratch = tempDirFor(ctx);
  const why = privateMountUnavailable(scratch);
  if (why) return ctx.skip(why);
  const mnt = join(scratch, 'ro');
  const run = await inPrivateMount({
    mountPoint: mnt,
    sizeKb: 4096,
    before: [['templates', 'add', TEMPLATE]],
    between: `mount -o remount,ro '${mnt}'`,
    after: [['status'], ['import', join(RESOURCES, 'samples/shot_list.json')]],
  });
  const [setup, status, imported] = run.results;
  assert.equal(setup?.code, EXIT.ok, setup?.output);
  for (const r of [status, imported]) {
    assert.equal(r?.code, EXIT.storage, r?.output);
    assert.match(
      r?.output ?? '',
      new RegExp(`The data folder ${mnt}/data is read-only \\(on a read-only file system\\)`),
    );
    assert.match(
      r?.output ?? '',
      /Make the folder writable, or choose another data folder \(--data DIR or SHOTFARM_DATA\)/,
    );
  }
});

test('an import on a full disk exits 6 naming the database, and stores none of its rows', {
  timeout: 90_000,
}, async (ctx) => {
  const scratch = tempDirFor(ctx);
  const why = privateMountUnavailable(scratch);
  if (why) return ctx.skip(why);
  const rows = ['Shot,Description'];
  for (let i = 0; i < 20_000; i++)
    rows.push(`sh${String(i).padStart(5, '0')},a description long enough to take some room in the store ${i}`);
  const csv = join(scratch, 'big.csv');
  writeFileSync(csv, rows.join('\n'));
  const mnt = join(scratch, 'full');
  const args = ['--project', 'P', '--episode', 'E', '--stage', 'keyframe', '--template', 'keyframe-img2img'];
  const run = await inPrivateMount({
    mountPoint: mnt,
    sizeKb: 1536,
    before: [['templates', 'add', TEMPLATE]],
    after: [
      ['import', csv, ...args],
      ['--json', 'status'],
    ],
  });
  const [setup, imported, status] = run.results;
  assert.equal(setup?.code, EXIT.ok, setup?.output);
  assert.equal(imported?.code, EXIT.storage, imported?.output);
  assert.match(
    imported?.output ?? '',
    new RegExp(
      `The disk holding the database ${mnt}/data/${DB_FILE_NAME} is full: importing big\\.csv stored nothing\\. Free some space there and try again\\.`,
    ),
  );
  assert.doesNotMatch(imported?.output ?? '', /^\s+at /m, 'no stack trace');
  // The transaction rolled back: the store still opens and holds no job.
  assert.equal(status?.code, EXIT.ok, status?.output);
  assert.equal(JSON.parse(status?.output ?? '{}').jobsByState.queued ?? 0, 0);
});
