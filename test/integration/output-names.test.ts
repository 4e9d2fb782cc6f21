/**
 * Defect 3 of issue [R]: the engine crash-looped when an output file could not be opened — in the
 * download, `res.body.destroy()` raised an error nobody listened for, the process exited 1 and
 * every restart crashed again. A legitimate shot list triggered it: a 236-character `param:prefix`
 * is fine for ComfyUI (a 247-character file) but made a 268-character temp name (limit 255).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { MAX_NAME_BYTES } from '../../electron/engine/files/fit-name.js';
import { farmFor } from '../helpers/farm.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { nextValue } from '../helpers/wait.js';

test('a download into a file that cannot be opened fails with that error, and leaves no unheard error behind', async (ctx) => {
  // The answer has begun and is still coming when the file fails to open.
  let hungUp: () => void = () => undefined;
  const gone = nextValue<void>((deliver) => (hungUp = deliver), {
    what: 'the client to drop the answer it cannot store',
    timeoutMs: 10_000,
  });
  gone.catch(() => undefined); // awaited below, once the download has failed
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.write(Buffer.alloc(64 * 1024, 1));
    res.on('close', hungUp);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ctx.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  // An 'error' event nobody listens for ends the process: catch any here, to say so.
  const stray: unknown[] = [];
  const note = (err: unknown): void => void stray.push(err);
  process.on('uncaughtException', note);
  ctx.after(() => process.off('uncaughtException', note));
  const dest = join(tempDirFor(ctx), `${'x'.repeat(300)}.png`); // over the 255-byte name limit
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await assert.rejects(new ComfyClient(url).downloadView({ filename: 'a.png' }, dest), /ENAMETOOLONG/);
  await gone; // the client dropped the body
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(stray, []);
});

test('a 236-character filename prefix renders, is stored under a name that fits, and the engine lives on', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}] });
  const prefix = `${'shot_sh010_keyframe_'.repeat(12)}`.slice(0, 236);
  const [id] = await farm.importJobs([{ id: 'sh010', parameters: { prefix } }]);
  const [job] = await farm.waitForStates([id!], ['completed', 'failed_retryable', 'failed_final']);
  assert.equal(job!.state, 'completed', job!.stateReason ?? '');
  const { rows } = await farm.engine.call('assets.list', { shot: 'sh010' });
  assert.equal(rows.length, 1);
  const name = basename(rows[0]!.path);
  assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES, name);
  assert.match(name, /^shot_sh010_keyframe_.*~[0-9a-f]{10}\.png$/, 'its start, a hash of the whole, its extension');
  assert.ok(existsSync(rows[0]!.path));
  assert.equal(job!.attempts, 1);
});
