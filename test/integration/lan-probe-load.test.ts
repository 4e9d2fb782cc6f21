/**
 * What the LAN pool's bookkeeping costs at studio scale (the scale bench's findings): a busy
 * workstation whose socket speaks is not probed every interval, and the workstations' health and
 * node lists are written in the tick's commit batch rather than one commit (one fsync) each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimInstance } from '../simulator/index.js';
import { farmFor } from '../helpers/farm.js';

/** Times of GET /system_stats (a probe's first request) at this simulator. */
function probeTimes(sim: SimInstance): number[] {
  const times: number[] = [];
  const host = sim as unknown as { onRequest: (req: IncomingMessage, res: ServerResponse) => void };
  const handle = host.onRequest.bind(sim);
  host.onRequest = (req, res) => {
    if (req.url?.startsWith('/system_stats')) times.push(Date.now());
    handle(req, res);
  };
  return times;
}

test('a busy workstation whose socket speaks within the probe interval is not probed every interval, and is again once idle', async (ctx) => {
  const interval = 400;
  const farm = await farmFor(ctx, {
    // A 4 s sampler of 40 steps: a progress frame every 100 ms, four per probe interval — so a loaded
    // machine that delays a frame or two still has the socket speaking within each interval.
    instances: [{ duration: { fixedMs: 50, perClassMs: { KSampler: 4_000 } } }],
    // The VRAM sampler's reads of /system_stats while a prompt runs are not probes: off here.
    config: { probeIntervalMs: interval, prefetch: false, vramSampleMs: 0 },
  });
  const probes = probeTimes(farm.sims[0] as SimInstance);
  const [id] = (await farm.importJobs([{ id: 'busy', parameters: { prompt: 'busy', steps: 40 } }])) as [string];
  await farm.waitFor('the sampler running', async () => (await farm.job(id)).attempt?.phase === 'running');
  const from = Date.now();
  await farm.waitForStates([id], ['completed'], 20_000);
  const busyMs = Date.now() - from;
  const busyProbes = probes.filter((t) => t >= from).length;
  // Every interval would be busyMs / interval (≥ 8 here); one in BUSY_PROBE_SKIPS + 1 still goes out.
  assert.ok(
    busyProbes <= Math.ceil(busyMs / interval / 2),
    `${busyProbes} probes in ${busyMs} ms busy (interval ${interval} ms)`,
  );
  const idleFrom = probes.length;
  await farm.waitFor('probes every interval again while idle', () => probes.length >= idleFrom + 4, 5_000);
});

test("the workstations' health and node lists are written in the tick's commit batch, not a commit each", async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}, {}, {}] });
  const batch = farm.engine.scheduler?.batch;
  assert.ok(batch);
  // No job yet: the only writes are the three workstations' first health and node list.
  await farm.waitFor('health and node lists stored through the batch', () => batch.stats.writes >= 6);
  const rows = await farm.engine.call('instances.list', {});
  assert.ok(
    rows.every((r) => r.health === 'idle'),
    JSON.stringify(rows.map((r) => r.health)),
  );
});
