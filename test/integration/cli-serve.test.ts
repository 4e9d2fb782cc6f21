// `shotfarm serve` on a port that is already taken: says which port and address, how to pick
// another, and exits with the documented conflict code.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('serve on a port already in use names the port and address, suggests --port and exits 5 (conflict)', async () => {
  const d = makeTempDir();
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  const signalListeners = process.listenerCount('SIGINT');
  try {
    const r = await runCli(d.path, 'serve', '--listen', '127.0.0.1', '--port', String(port), '--static', d.path);
    assert.equal(r.code, EXIT.conflict);
    assert.match(r.err, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.match(r.err, /--port N/);
    assert.doesNotMatch(r.err, /EADDRINUSE/, 'not the bare system error');
    assert.equal(process.listenerCount('SIGINT'), signalListeners, 'no signal handler is left behind');
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    d.cleanup();
  }
});
