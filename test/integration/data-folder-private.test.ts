/**
 * Issue 29 item 4: the database, its journals and the data folder were created with the umask
 * (0644/0755): another local user copied the database and read a webhook secret. Now the data
 * folder is 0700 and the farm's files 0600 whatever the umask; a folder left readable is said and
 * made private. "Another local user" is real: `setpriv --reuid=nobody` (tests run as root here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { storeRunpodKey } from '../../electron/engine/pools/runpod/api-key.js';
import { Engine } from '../../electron/engine/engine.js';
import { REPO } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8).padStart(4, '0');

/** Runs `cmd` as the `nobody` user; null when setpriv cannot switch users here (not root). */
function asNobody(cmd: string[]): { status: number | null; stderr: string } | null {
  if (process.getuid?.() !== 0) return null;
  const r = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...cmd], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.error) return null;
  return { status: r.status, stderr: r.stderr };
}

/** A data folder inside a folder every user may enter (a temp dir itself is 0700, which would hide the defect). */
function openParent(dir: string): string {
  chmodSync(dir, 0o755);
  return join(dir, 'data');
}

test('with umask 022 the data folder is 0700 and the database, journals, lock file, lock record and key file 0600; another user cannot read the database', async (ctx) => {
  const data = openParent(tempDirFor(ctx));
  const old = process.umask(0o022);
  ctx.after(() => process.umask(old));
  const engine = new Engine({ dataDir: data, kind: 'serve', log: () => undefined });
  ctx.after(() => engine.close());
  // The key file is made when a RunPod key is first stored.
  storeRunpodKey(engine.db, data, 'rp_test_key_0000', 0);
  assert.equal(mode(data), '0700');
  for (const f of [
    'shotfarm.sqlite',
    'shotfarm.sqlite-wal',
    'shotfarm.sqlite-shm',
    'engine.lock',
    'engine.lock.json',
    'runpod-key.bin',
  ]) {
    assert.ok(existsSync(join(data, f)), f);
    assert.equal(mode(join(data, f)), '0600', f);
  }
  const read = asNobody(['cat', join(data, 'shotfarm.sqlite')]);
  if (read === null) return ctx.diagnostic('not root: the other-user read was not tried');
  assert.notEqual(read.status, 0, 'another local user must not read the database');
  assert.match(read.stderr, /Permission denied/);
});

test('a start on a data folder others can read says so and makes it private (its owner runs the farm)', async (ctx) => {
  const data = openParent(tempDirFor(ctx));
  const old = process.umask(0o022);
  ctx.after(() => process.umask(old));
  mkdirSync(data);
  const setup = new Engine({ dataDir: data, log: () => undefined });
  await setup.close();
  chmodSync(data, 0o755);
  chmodSync(join(data, 'shotfarm.sqlite'), 0o644);
  const lines: string[] = [];
  const engine = new Engine({ dataDir: data, kind: 'run', log: (m) => lines.push(m) });
  ctx.after(() => engine.close());
  assert.equal(mode(data), '0700');
  assert.equal(mode(join(data, 'shotfarm.sqlite')), '0600');
  assert.ok(
    lines.some((l) =>
      /the data folder .* could be read by other users \(mode 0755\); made it private \(0700\)/.test(l),
    ),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /shotfarm\.sqlite could be read by other users \(mode 0644\); made it private \(0600\)/.test(l)),
    lines.join('\n'),
  );
});

test('the shipped systemd unit creates files for the service user only (UMask=0077)', () => {
  assert.match(readFileSync(join(REPO, 'resources/shotfarm.service'), 'utf8'), /^UMask=0077$/m);
});
