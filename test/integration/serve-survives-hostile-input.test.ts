/**
 * Build item 3 of issue [R], at the process level: a real `shotfarm serve` (bin/shotfarm.js in a
 * process of its own) is fed what used to end it or balloon it — a workstation answering a 300 MB
 * /system_stats and /object_info, a WebSocket frame over the limit on /api/events, an output name
 * longer than the file system takes — and after each it is still serving: the API answers, the
 * farm renders the next job once, and a SIGTERM is a clean exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import WebSocket from 'ws';
import { MAX_CLIENT_FRAME_BYTES } from '../../electron/server/event-socket.js';
import { seedDataFolder, startFarmProcess } from '../helpers/farm-process.js';
import { on, startHostileComfy, streamBytes } from '../helpers/hostile-comfy.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { nextValue, waitUntil } from '../helpers/wait.js';
import { startSimInstance } from '../simulator/index.js';

const MB = 1024 * 1024;

test('serve stays up and serving through oversized ComfyUI answers, an oversized WebSocket frame and an over-long output name', {
  timeout: 180_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const web = join(dir, 'web');
  mkdirSync(web);
  const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: 20 } });
  ctx.after(() => sim.close());
  const hostile = await startHostileComfy(sim.url, [
    on('GET', '/system_stats', (_req, res) => streamBytes(res, { prefix: '{"system":{"os":"', total: 300 * MB })),
    on('GET', '/object_info', (_req, res) => streamBytes(res, { prefix: '{"KSampler":{"input":"', total: 300 * MB })),
  ]);
  ctx.after(() => hostile.close());
  await seedDataFolder(dir, hostile.url);

  const serve = startFarmProcess('serve', dir, { staticDir: web });
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  const api = async <T>(method: string, input: unknown): Promise<T> => {
    const res = await request(`${serve.url()}/api/call/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.body.json()) as { ok: boolean; result: T; error?: unknown };
    assert.ok(body.ok, `${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  const stillServing = async (after: string): Promise<void> => {
    assert.equal(serve.child.exitCode, null, `serve ended after ${after}:\n${serve.output()}`);
    const info = await request(`${serve.url()}/api/info`);
    assert.equal(info.statusCode, 200, `serve answers after ${after}`);
    await info.body.dump();
  };

  // 1. The probes meet the 300 MB answers, refused as they arrive: the process neither dies nor balloons.
  await waitUntil(() => hostile.sent() > 2 * MB, {
    what: 'the probes to meet the oversized answers',
    pollMs: 50,
    detail: serve.output,
  });
  await stillServing('300 MB answers to its probes');
  assert.ok(
    hostile.sent() < 100 * MB,
    `the answers were refused as they came, not read whole (${hostile.sent()} bytes sent)`,
  );

  // 2. One WebSocket frame over the limit: that socket is closed, nothing else.
  const ws = new WebSocket(`${serve.url()!.replace('http', 'ws')}/api/events`);
  ws.on('error', () => undefined);
  await nextValue<void>((deliver) => ws.once('message', () => deliver()), { what: 'the hello frame' });
  const closed = nextValue<number>((deliver) => ws.once('close', (code) => deliver(code)), {
    what: 'the oversized socket to close',
  });
  ws.send('x'.repeat(MAX_CLIENT_FRAME_BYTES + 1024));
  assert.equal(await closed, 1009);
  await stillServing('an oversized WebSocket frame');

  // 3. The workstation behaves again; a job whose output name is longer than the file system takes renders, once.
  hostile.setRoutes([]);
  const prefix = `${'shot_sh010_keyframe_'.repeat(12)}`.slice(0, 236);
  const list = {
    project: 'P',
    episode: 'E',
    shots: [{ id: 'sh010', stage: 'keyframe', template: 'txt2img', parameters: { prefix } }],
  };
  const preview = await api<{ previewId: string }>('import.preview', {
    fileName: 'list.json',
    content: JSON.stringify(list),
  });
  const { jobIds } = await api<{ jobIds: string[] }>('import.commit', { previewId: preview.previewId });
  await waitUntil(async () => (await api<{ state: string }>('jobs.get', { id: jobIds[0] })).state === 'completed', {
    what: 'the job with the over-long output name to complete',
    pollMs: 100,
    timeoutMs: 60_000,
    detail: serve.output,
  });
  await stillServing('an over-long output name');
  assert.equal(sim.counts(jobIds[0]!).executed, 1, 'rendered once');
  assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
});
