/**
 * Issue 29 item 3: RunPod answers were read whole (a 300 MB /health took `serve` from 181 MB to
 * 1.27 GB). The RunPod client now goes through the ComfyUI client's sender (comfy/http.ts): each
 * operation's answer is capped as it arrives (runpod-protocol.ts RUNPOD_ANSWER_LIMITS). Measured on
 * a real `serve` process: its peak resident memory (VmHWM) while a base streams 300 MB at /health.
 * An output image given as an S3 URL is counted as it arrives too (once only its announced length was).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Engine } from '../../electron/engine/engine.js';
import { storeWorkerImages } from '../../electron/engine/pools/runpod/runpod-outputs.js';
import { OutputTooLarge } from '../../electron/engine/files/output-file.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { startFarmProcess } from '../helpers/farm-process.js';
import { streamBytes } from '../helpers/hostile-comfy.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const MB = 1024 * 1024;

function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line =
    readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`)) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? NaN) / 1024;
}

test('a 300 MB /health from a RunPod base is refused as it arrives: serve stays within 100 MB of where it started', {
  timeout: 120_000,
}, async (t) => {
  let release: () => void = () => undefined;
  const go = new Promise<void>((r) => (release = r));
  let sent = 0;
  let answered!: () => void;
  const done = new Promise<void>((r) => (answered = r));
  let healthAsked!: () => void;
  const asked = new Promise<void>((r) => (healthAsked = r));
  const server = createServer((req, res: ServerResponse) => {
    if (!req.url?.endsWith('/health') || sent > 0) return void res.writeHead(503).end();
    sent = 1;
    healthAsked();
    void go.then(() => {
      res.on('close', () => answered());
      const write = res.write.bind(res);
      res.write = ((chunk: Buffer | string, ...rest: never[]) => {
        sent += Buffer.byteLength(chunk);
        return write(chunk, ...rest);
      }) as typeof res.write;
      streamBytes(res, { prefix: '{"jobs":{"completed":1},"workers":{"idle":"', total: 300 * MB });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;

  const dir = tempDirFor(t, 'shotfarm-runpod-bounds-');
  const setup = new Engine({ dataDir: dir, log: () => undefined });
  try {
    await setup.call('cloud.setApiKey', { apiKey: SIM_KEY });
    await setup.call('cloud.addRunpod', { name: 'big-health', endpointId: 'ep1', apiBase, pricePerHourUsd: 1 });
  } finally {
    await setup.close();
  }
  const serve = startFarmProcess('serve', dir, { staticDir: dir });
  t.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  await asked;
  const pid = serve.child.pid as number;
  const before = memoryMb(pid, 'VmRSS');
  release();
  await done;
  const peak = memoryMb(pid, 'VmHWM');
  t.diagnostic(
    `serve RSS before the /health answer: ${before.toFixed(0)} MB; peak while it came: ${peak.toFixed(0)} MB; the base wrote ${(sent / MB).toFixed(1)} MB of 300 MB`,
  );
  assert.ok(
    peak - before < 100,
    `serve's peak resident memory rose ${(peak - before).toFixed(0)} MB (from ${before.toFixed(0)} to ${peak.toFixed(0)} MB)`,
  );
  assert.ok(sent < 32 * MB, `the answer was refused as it came, not read whole (${(sent / MB).toFixed(1)} MB sent)`);
  assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
});

test("an S3 output URL that streams 200 MB without a length is cut at output_max_gb's limit as it arrives, not read whole", {
  timeout: 60_000,
}, async (t) => {
  let sent = 0;
  const server = createServer((_req, res) => {
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    streamBytes(res, { total: 200 * MB, contentType: 'image/png' }); // chunked: no content-length
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const root = tempDirFor(t, 'shotfarm-s3-bounds-');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/out.png`;
  await assert.rejects(
    storeWorkerImages(
      [{ filename: 'out.png', type: 's3_url', data: url }],
      root,
      { project: 'P', episode: 'E', shot: 's', stage: 'k', take: 1 },
      { maxBytes: MB },
    ),
    (err: unknown) => err instanceof OutputTooLarge,
  );
  assert.ok(sent < 32 * MB, `refused as it came (${(sent / MB).toFixed(1)} MB sent of 200)`);
});
