/**
 * A group whose forecast passes its due time is announced once (issue 28): not at every
 * recomputation, not again after a restart; a hook on `late` receives it; `shotfarm status` shows
 * it late with what would make it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LateHookPayload } from '../../electron/engine/hooks/hook-runner.js';
import { addHook } from '../../electron/engine/hooks/hook-settings.js';
import { systemClock } from '../../electron/engine/clock.js';
import type { ForecastGroup } from '../../shared/forecast.js';
import { forecastLines } from '../../electron/cli/farm-command.js';
import { farmFor } from '../helpers/farm.js';

test('the late event goes out once per group that turns late, and not again after a restart', async (t) => {
  // Runs long enough that the episode is still rendering at the forecaster's next computations (every
  // 10 s at most) however loaded the machine: a finished episode is no longer forecast.
  const farm = await farmFor(t, { instances: [{ gpuName: 'SIM GPU', duration: { fixedMs: 6_000 } }] });
  let e = farm.engine;
  // A webhook on late: what the forecast.late event says reaches it.
  const posted: LateHookPayload[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      posted.push(JSON.parse(body) as LateHookPayload);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/late`;
  addHook(e.db, systemClock, { id: 'late-chat', on: ['late'], kind: 'webhook', url });
  const late: ForecastGroup[] = [];
  const listen = () => e.events.on('forecast.late', ({ group }) => late.push(group));
  let off = listen();
  const soon = new Date(Date.now() + 2_000).toISOString();
  const list = {
    project: 'P',
    episode: 'ep101',
    due: soon,
    shots: Array.from({ length: 8 }, (_, i) => ({ id: `sq010_sh${i}`, stage: 'keyframe', template: 'txt2img' })),
  };
  const ontime = {
    project: 'P',
    episode: 'ep102',
    due: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    shots: [{ id: 'sh1', stage: 'keyframe', template: 'txt2img' }],
  };
  for (const l of [list, ontime]) {
    const p = await e.call('import.preview', { fileName: 'l.json', content: JSON.stringify(l) });
    await e.call('import.commit', { previewId: p.previewId });
  }
  await farm.waitFor('the episode turns late', () => late.some((g) => g.key === 'P/ep101'), 40_000);
  for (let i = 0; i < 3; i++) e.forecast.compute(Date.now());
  const keys = late.map((g) => g.key).sort();
  assert.deepEqual(keys, ['P', 'P/ep101', 'P/ep101/sq010'], 'one event per late group, however often recomputed');
  await e.hooks.whenIdle();
  assert.deepEqual(
    posted.map((p) => [p.event, p.group.key]).sort(),
    keys.map((k) => ['late', k]),
    'the hook on late got each late group once',
  );
  for (const p of posted)
    assert.deepEqual(
      p.group,
      late.find((g) => g.key === p.group.key),
      'the payload is the forecast.late group',
    );
  const view = e.forecast.current();
  const ep = view.groups.find((g) => g.key === 'P/ep101');
  assert.equal(ep?.late, true);
  assert.ok(ep?.p90At && ep.dueAt && ep.p90At > ep.dueAt, 'late exactly because the forecast passes the due time');
  assert.equal(view.groups.find((g) => g.key === 'P/ep102')?.late, false);
  const lines = forecastLines(view, Date.now());
  assert.ok(
    // The due time may read with its day ("Fri 23:59") when the test runs across midnight.
    lines.some((l) => /^ {2}P\/ep101: 8 jobs, .*due \S+( \S+)? ✗( — .+)?$/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /^ {2}P\/ep102: 1 job, .*✓$/.test(l)),
    lines.join('\n'),
  );
  off();
  e = await farm.restartEngine();
  off = listen();
  late.length = 0;
  for (let i = 0; i < 2; i++) e.forecast.compute(Date.now());
  assert.deepEqual(late, [], 'a restart does not announce the same late groups again');
  await e.hooks.whenIdle();
  assert.equal(posted.length, 3, 'nor does it deliver them again');
  off();
});
