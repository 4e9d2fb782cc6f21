/**
 * Defect 8 of issue [R]: ComfyUI answers were read whole with no limit (a 300 MB /system_stats or a
 * 600 MB /history took the engine to 1.4 GB), /view downloads had no overall deadline (a 1 byte/s
 * drip still downloading at 150 s on a 30 s template) and no size cap (a 500 MB body stored as a
 * "png"), and a malformed /history read as "lost contact". Each against a fake ComfyUI that
 * misbehaves on purpose (test/helpers/hostile-comfy.ts) in front of a real simulator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { ComfyRequestError } from '../../electron/engine/comfy/observation.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { drip, hostileFarmFor, on, startHostileComfy, streamBytes } from '../helpers/hostile-comfy.js';
import { startSimInstance } from '../simulator/index.js';

const MB = 1024 * 1024;

async function failureOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ComfyRequestError) return `${err.failure.kind}: ${err.message}`;
    throw err;
  }
  assert.fail('expected a ComfyRequestError');
}

test('a 300 MB /system_stats and a 600 MB /history are refused as they arrive, not read whole', async (ctx) => {
  const sim = await startSimInstance({ name: 'sim-0' });
  ctx.after(() => sim.close());
  const hostile = await startHostileComfy(sim.url, [
    on('GET', '/system_stats', (_req, res) => streamBytes(res, { prefix: '{"system":{"os":"', total: 300 * MB })),
    on('GET', '/history/*', (_req, res) => streamBytes(res, { prefix: '{"p1":{"prompt":"', total: 600 * MB })),
  ]);
  ctx.after(() => hostile.close());
  const client = new ComfyClient(hostile.url);
  assert.match(await failureOf(client.getSystemStats()), /^malformed: GET \/system_stats: .*larger than 1 MB/);
  const afterStats = hostile.sent();
  assert.ok(
    afterStats < 16 * MB,
    `only about the limit was read from /system_stats, not 300 MB (the server sent ${afterStats} bytes)`,
  );
  assert.match(await failureOf(client.getHistory('p1')), /^malformed: GET \/history\/p1: .*larger than 32 MB/);
  assert.ok(
    hostile.sent() - afterStats < 64 * MB,
    `only about the limit was read from /history, not 600 MB (${hostile.sent() - afterStats} bytes)`,
  );
  // An announced length over the limit is refused before its body is read.
  hostile.setRoutes([on('GET', '/system_stats', (_req, res) => streamBytes(res, { total: 50 * MB, announce: true }))]);
  const before = hostile.sent();
  assert.match(await failureOf(client.getSystemStats()), /larger than 1 MB/);
  assert.ok(hostile.sent() - before < 16 * MB, 'announced as too large: hung up at once');
});

test('/object_info is bounded by the object_info_max_mb setting, applied live', async (ctx) => {
  // The simulator's node list padded to 1.5 MB: over a 1 MB limit, under a 2 MB one.
  let asked = 0;
  const { farm, hostile } = await hostileFarmFor(ctx, {
    routes: [
      on('GET', '/object_info', async (_req, res, upstream) => {
        asked++;
        const up = await upstream();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.concat([up.body, Buffer.alloc(1.5 * MB - up.body.length, ' ')]));
      }),
    ],
  });
  assert.match(
    await failureOf(new ComfyClient(hostile.url).getObjectInfo({ maxBytes: MB })),
    /^malformed: GET \/object_info: .*larger than 1 MB/,
  );
  await farm.engine.call('settings.set', { key: 'object_info_max_mb', value: 1 });
  farm.startScheduler();
  const from = asked;
  await farm.waitFor('the farm to have asked for the node list twice', () => asked >= from + 2);
  assert.equal(farm.engine.scheduler!.readiness()[0]?.nodeListKnown, false, 'refused: no node list');
  await farm.engine.call('settings.set', { key: 'object_info_max_mb', value: 2 });
  await farm.waitFor(
    'the node list to load under the raised limit',
    () => farm.engine.scheduler!.readiness()[0]?.nodeListKnown === true,
  );
});

test('a /view that drips a byte at a time ends at the download deadline the template timeout gives it', async (ctx) => {
  const { farm, hostile } = await hostileFarmFor(ctx, {
    routes: [on('GET', '/view', (_req, res) => drip(res, 20))],
    config: { downloadMinMs: 200, retry: { maxAttempts: 1, baseMs: 10, capMs: 10 } },
  });
  await addTemplateVariant(farm.engine, 'txt2img', { name: 'quick', timeout_s: 1 });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh1', template: 'quick' }]);
  const [job] = await farm.waitForStates([id!], ['failed_final'], 15_000);
  assert.match(job!.stateReason ?? '', /outputs could not be downloaded: GET \/view: no answer within 1000 ms/);
  assert.ok(hostile.sent() < 200, `the drip was cut at the deadline (${hostile.sent()} bytes)`);
});

test('an output larger than output_max_gb fails its job for good and is not stored', async (ctx) => {
  const { farm } = await hostileFarmFor(ctx, {
    routes: [
      on('GET', '/view', (_req, res) => streamBytes(res, { total: 30 * MB, fill: '\u0089', contentType: 'image/png' })),
    ],
  });
  await farm.engine.call('settings.set', { key: 'output_max_gb', value: 0.01 });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh1' }]);
  const [job] = await farm.waitForStates([id!], ['failed_final', 'completed', 'failed_retryable']);
  assert.equal(job!.state, 'failed_final', job!.stateReason ?? '');
  assert.match(
    job!.stateReason ?? '',
    /the output test_00001_\.png is larger than the 10\.2 MB limit \(setting output_max_gb\); not stored/,
  );
  assert.equal(job!.attempts, 1, 'not retried: the same render would make the same file');
  const take = join(farm.dir, 'out', 'P', 'E', 'sh1', 'keyframe', 'take-1');
  assert.deepEqual(existsSync(take) ? readdirSync(take) : [], [], 'nothing left in the take folder');
  assert.equal((await farm.engine.call('assets.list', { shot: 'sh1' })).total, 0, 'no ledger row');
});

test('a /history that answers with something not JSON is said so, not "lost contact"', async (ctx) => {
  const { farm } = await hostileFarmFor(ctx, {
    routes: [
      on(
        'GET',
        '/history/*',
        (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy error</html>'),
      ),
    ],
    config: { graceMs: 600, retry: { maxAttempts: 1, baseMs: 10, capMs: 10 } },
  });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh1' }]);
  const [job] = await farm.waitForStates([id!], ['failed_final', 'completed']);
  assert.match(
    job!.stateReason ?? '',
    /sim-0 answered GET \/history\/[0-9a-f-]+ with something ComfyUI does not send \(the answer is not JSON/,
  );
  assert.doesNotMatch(job!.stateReason ?? '', /lost contact/);
});
