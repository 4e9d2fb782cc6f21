/**
 * The PostgreSQL bridge's worker file is looked for before a worker starts: a missing one (an
 * incomplete install or bundle) is said at once, as an installation fault, instead of the engine's
 * thread waiting out the call's bound and reporting the database unreachable.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  isConnectionCode,
  postgresFault,
  PostgresStoreError,
} from '../../electron/engine/store/postgres/postgres-error.js';
import { BRIDGE_MISSING, bridgeWorkerFile } from '../../electron/engine/store/postgres/sync-bridge.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('a missing bridge worker file is an installation fault named at once, not an unreachable database', (ctx) => {
  const dir = makeTempDir('shotfarm-bridge-file-');
  ctx.after(() => dir.cleanup());
  const store = pathToFileURL(join(dir.path, 'sync-bridge.js')).href;
  let thrown: unknown;
  try {
    bridgeWorkerFile(store);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof PostgresStoreError, 'a store error');
  assert.equal(thrown.code, BRIDGE_MISSING);
  assert.match(thrown.message, /bridge-worker\.js is missing: this installation is incomplete/);
  assert.equal(isConnectionCode(thrown.code), false);
  assert.equal(postgresFault(thrown), null, 'no storage hold waits for an install to fix itself');
});

test('a present bridge worker file is the one beside the store module (.js built, .ts from sources)', (ctx) => {
  const dir = makeTempDir('shotfarm-bridge-file-');
  ctx.after(() => dir.cleanup());
  writeFileSync(join(dir.path, 'bridge-worker.js'), '');
  writeFileSync(join(dir.path, 'bridge-worker.ts'), '');
  assert.equal(
    bridgeWorkerFile(pathToFileURL(join(dir.path, 'sync-bridge.js')).href).href,
    pathToFileURL(join(dir.path, 'bridge-worker.js')).href,
  );
  assert.equal(
    bridgeWorkerFile(pathToFileURL(join(dir.path, 'sync-bridge.ts')).href).href,
    pathToFileURL(join(dir.path, 'bridge-worker.ts')).href,
  );
});
