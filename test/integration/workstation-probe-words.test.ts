/**
 * Issue [R] defects 5 and 10, the workstation probe: a workstation URL pointed at an internal
 * service echoed 120 characters of that service's answer into the UI; a server reporting absurd
 * VRAM or no GPU showed as healthy while its jobs waited without a reason. Now the probe speaks in
 * its own words, and implausible figures make the workstation unhealthy, saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farmFor } from '../helpers/farm.js';
import { engineFor } from '../helpers/engine.js';
import { json, standIn, systemStats } from '../helpers/stand-in-servers.js';

const SECRET = 'db_password=hunter2 internal-admin-token-7f3a';

test('a URL that is not ComfyUI: the probe says what it is not, never what the service answered', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const services = {
    'a 200 page': await standIn(ctx, (_p, _b, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${SECRET}</html>`),
    ),
    'a 404 page': await standIn(ctx, (_p, _b, res) => res.writeHead(404).end(`not here; ${SECRET}`)),
    'a 500 page': await standIn(ctx, (_p, _b, res) => res.writeHead(500).end(SECRET)),
    'JSON of another shape': await standIn(ctx, (_p, _b, res) =>
      json(res, 200, { status: 'ok', detail: SECRET, [SECRET]: 1 }),
    ),
  };
  const names = Object.keys(services).map((n) => n.replace(/\W+/g, '-'));
  for (const [n, s] of Object.values(services).entries())
    await t.engine.call('instances.add', { name: names[n]!, url: s.url });
  const report = await t.engine.call('instances.probeAll', { timeoutMs: 2_000 });
  assert.equal(report.healthy, 0);
  const listed = await t.engine.call('instances.list', {});
  for (const answer of [JSON.stringify(report), JSON.stringify(listed)]) {
    assert.doesNotMatch(answer, /hunter2|internal-admin-token/, 'the service answer never reaches an answer of ours');
  }
  const errors = names
    .map((n) => report.instances.find((i) => i.name === n))
    .map((i) => (i?.probe.ok === false ? i.probe.error : ''));
  assert.match(
    errors[0] ?? '',
    /^\/system_stats: the answer is not ComfyUI's \(the answer is not JSON \(\d+ bytes\)\): is this URL a ComfyUI server\?$/,
  );
  assert.match(errors[1] ?? '', /^\/system_stats: HTTP 404, no such route here: is this URL a ComfyUI server/);
  assert.equal(errors[2], '/system_stats: HTTP 500');
  assert.match(
    errors[3] ?? '',
    /^\/system_stats: the answer is not ComfyUI's \(.* at system\): is this URL a ComfyUI server\?$/,
  );
});

test('absurd /system_stats figures make the probe fail with the reason: no GPU, negative or petabyte VRAM', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const gb = 1024 ** 3;
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['no-gpu', systemStats({}, []), /^\/system_stats reports no GPU \(its device list is empty\)/],
    ['negative', systemStats({ vram_total: -24 * gb }), /^\/system_stats reports a negative vram_total \(-24 GB\)/],
    [
      'petabyte',
      systemStats({ vram_total: 2 * 1024 ** 5 }),
      /^\/system_stats reports vram_total 2097152 GB .*more than any GPU has \(over 1 PB\)/,
    ],
    ['infinite', systemStats({ vram_free: null }), /received Infinity at devices\.0\.vram_free/],
    [
      'more-free-than-total',
      systemStats({ vram_free: 48 * gb }),
      /reports more free VRAM \(48 GB\) than its GPU .* has \(24 GB\)/,
    ],
  ];
  for (const [name, stats] of cases) {
    const s = await standIn(ctx, (path, _b, res) => {
      // 1e999 is not JSON.stringify-able: write it by hand, as a hostile server would.
      if (path === '/system_stats')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(stats).replace('"vram_free":null', '"vram_free":1e999'));
      else json(res, 200, { queue_running: [], queue_pending: [] });
    });
    await t.engine.call('instances.add', { name, url: s.url });
  }
  const report = await t.engine.call('instances.probeAll', { timeoutMs: 2_000 });
  assert.equal(report.healthy, 0);
  for (const [name, , words] of cases) {
    const i = report.instances.find((x) => x.name === name);
    assert.equal(i?.health, 'unhealthy', name);
    assert.match(i?.probe.ok === false ? i.probe.error : '', words, name);
  }
});

test('on a running farm, a workstation with no GPU is unhealthy and the job says why it waits', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [], start: false });
  const s = await standIn(ctx, (path, _b, res) => {
    if (path === '/system_stats') json(res, 200, systemStats({}, []));
    else if (path === '/queue') json(res, 200, { queue_running: [], queue_pending: [] });
    else json(res, 200, {});
  });
  await farm.engine.call('instances.add', { name: 'gpu-x', url: s.url });
  farm.startScheduler();
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitFor(
    'gpu-x to be unhealthy',
    async () => (await farm.engine.call('instances.list', {}))[0]?.health === 'unhealthy',
  );
  const why = await farm.engine.call('jobs.why', { id: id! });
  const text = JSON.stringify(why);
  assert.match(text, /gpu-x/);
  assert.match(text, /is unhealthy: \/system_stats reports no GPU/);
  assert.equal((await farm.job(id!)).state, 'queued', 'nothing was sent to it');
  assert.equal(s.seen.filter((r) => r.path === '/prompt').length, 0);
});
