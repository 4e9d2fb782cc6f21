/**
 * Remote callers never read the farm host's paths (hosting/server-paths.ts), but a one-shot command
 * in another terminal of the farm host does: the control listener answers at this machine's door,
 * where a path is the caller's own and the word it needs to act on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startServer } from '../../electron/server/server.js';
import { makeEngine } from '../helpers/engine.js';
import { waitUntil } from '../helpers/wait.js';

const call = async (url: string, token: string | null, input: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(input),
  });
  return (await res.json()) as { ok: boolean; error?: { code: string; message: string } };
};

test("the control listener tells this machine's terminal the path; serve withholds it from the network", async () => {
  const t = await makeEngine({ templates: false, kind: 'run' });
  const server = await startServer({ engine: t.engine, port: 0 });
  try {
    const stray = join(tmpdir(), 'shotfarm-not-a-release', 'manifest.json');
    const { url, token } = await waitUntil(() => t.engine.holder?.control, {
      what: 'the control listener',
      timeoutMs: 10_000,
    });
    const local = await call(`${url}/call/release.verify`, token, { path: stray });
    assert.equal(local.error?.code, 'bad_input');
    assert.ok(local.error?.message.includes(`${stray} is outside the releases root`), local.error?.message);
    const remote = await call(new URL('/api/call/release.verify', server.url).href, null, { path: stray });
    assert.equal(remote.error?.code, 'bad_input');
    assert.ok(!remote.error?.message.includes(stray), remote.error?.message);
    assert.match(remote.error?.message ?? '', /\[a path on the farm host\] is outside the releases root/);
  } finally {
    await server.close();
    await t.close();
  }
});
