/**
 * A request's deadline counts only time the engine was running (comfy/http.ts Deadline): a server
 * that answered at once, while the engine's own event loop was stalled past the deadline (a long
 * GC, a long synchronous step — PostgreSQL's bridge calls are synchronous — a frozen process), is
 * heard, not timed out. Seen on loaded test machines: a 2.2 s stall failed a workstation's first
 * probe (left out until its next probe, a minute later) and RunPod /run calls that had queued their
 * job (sent again). A server that does not answer still times out. Real HTTP on loopback.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from '../../electron/engine/comfy/http.js';
import { ComfyRequestError } from '../../electron/engine/comfy/observation.js';

const DEADLINE_MS = 100;
/** The stall: several deadlines long, as a loaded machine's were. */
const STALL_MS = 600;

/** Blocks this process's event loop, as a long synchronous step does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else in this process runs
  }
}

async function serve(ctx: TestContext, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ctx.after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: DEADLINE_MS, dispatcher: undefined };
}

test('an answer sent while the engine was stalled past the deadline is heard, not timed out', async (ctx) => {
  const transport = await serve(ctx, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"queue_running":[]}');
    // The answer is on its way; the whole process (the client with it) now stalls past the deadline.
    stall(STALL_MS);
  });
  const answer = await send(transport, { method: 'GET', path: '/queue' });
  assert.equal(answer.status, 200);
  assert.equal(answer.text, '{"queue_running":[]}');
});

test('a server that does not answer still times out, stall or not', async (ctx) => {
  const transport = await serve(ctx, () => {
    stall(STALL_MS); // and never answers
  });
  await assert.rejects(send(transport, { method: 'GET', path: '/queue' }), (err: unknown) => {
    assert.ok(err instanceof ComfyRequestError);
    assert.equal(err.failure.kind, 'timeout', err.message);
    return true;
  });
  const quiet = await serve(ctx, () => undefined);
  await assert.rejects(send(quiet, { method: 'GET', path: '/queue' }), (err: unknown) => {
    assert.ok(err instanceof ComfyRequestError);
    assert.equal(err.failure.kind, 'timeout', err.message);
    return true;
  });
});
