/**
 * Issue 29 item 2: an operator (or anyone reaching a loopback `serve`) could register a RunPod
 * endpoint at an API base of theirs and receive the farm's RunPod key in the first /health's
 * Authorization header. Now a page's transport refuses `apiBase` (forbidden), the key goes only to
 * RunPod's API or a base chosen on the farm host, and no answer of a foreign base is shown back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../../electron/server/server.js';
import { KEY_WITHHELD } from '../../electron/engine/pools/runpod/api-base.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { engineFor } from '../helpers/engine.js';
import { farmFor } from '../helpers/farm.js';
import { addPerson, callAs } from '../helpers/people.js';

interface Heard {
  path: string;
  authorization: string | undefined;
}

/** A stand-in "RunPod" on loopback that writes down every request's Authorization header. */
async function recordingRunpod(
  t: { after: (fn: () => Promise<void>) => void },
  answer: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const heard: Heard[] = [];
  const server = createServer((req, res) => {
    heard.push({ path: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`, heard };
}

const healthy = (_req: IncomingMessage, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jobs: { inQueue: 0 }, workers: { idle: 1, running: 0 } }));
};

test('over serve, neither the loopback solo caller nor an operator may choose a RunPod API base (forbidden), and the fake RunPod hears nothing', async (t) => {
  const { engine } = await engineFor(t);
  await engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  const fake = await recordingRunpod(t, healthy);
  const server = await startServer({ engine, staticDir: engine.dataDir });
  t.after(() => server.close());
  const input = { name: 'mine', endpointId: 'ep1', apiBase: fake.apiBase, pricePerHourUsd: 1 };

  const solo = await callAs(server.url, null, 'cloud.addRunpod', input);
  assert.equal(solo.status, 403);
  assert.equal(solo.body.error?.code, 'forbidden');
  assert.match(solo.body.error?.message ?? '', /set only on the farm host: shotfarm workers add-runpod --api-base/);

  const token = await addPerson(engine, 'op-1', 'operator');
  const operator = await callAs(server.url, token, 'cloud.addRunpod', input);
  assert.equal(operator.status, 403);
  assert.equal(operator.body.error?.code, 'forbidden');
  // Even RunPod's own base: the page has no reason to send the field at all.
  const named = await callAs(server.url, token, 'cloud.addRunpod', { ...input, apiBase: 'https://api.runpod.ai/v2' });
  assert.equal(named.body.error?.code, 'forbidden');

  const plain = await callAs(server.url, token, 'cloud.addRunpod', {
    name: 'rp',
    endpointId: 'ep1',
    pricePerHourUsd: 1,
  });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  assert.equal(
    (plain.body.result as { url: string }).url,
    'https://api.runpod.ai/v2/ep1',
    "without apiBase: RunPod's API",
  );
  const rows = await engine.call('instances.list', {});
  assert.deepEqual(
    rows.map((r) => r.name),
    ['rp'],
    'nothing stored for the refused calls',
  );
  assert.deepEqual(fake.heard, [], 'the fake RunPod heard nothing');
});

test('the key goes to a base chosen on the farm host, never to one that was not (an older row): the fake RunPod never sees it', async (t) => {
  const notLocal = await recordingRunpod(t, healthy);
  const local = await recordingRunpod(t, healthy);
  const farm = await farmFor(t, { instances: [], start: false });
  const { engine } = farm;
  await engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  await engine.call('cloud.addRunpod', {
    name: 'host-set',
    endpointId: 'ep1',
    apiBase: local.apiBase,
    pricePerHourUsd: 1,
  });
  const other = await engine.call('cloud.addRunpod', {
    name: 'not-host-set',
    endpointId: 'ep2',
    apiBase: notLocal.apiBase,
    pricePerHourUsd: 1,
  });
  // What a database from before the rule holds for a base set over the network.
  engine.db.run('UPDATE instances SET api_base_local = 0 WHERE id = ?', other.id);
  farm.startScheduler();

  await farm.waitFor('the host-set endpoint asked for /health', () => local.heard.length > 0);
  assert.equal(
    local.heard[0]?.authorization,
    `Bearer ${SIM_KEY}`,
    'negative control: the recorder does see a key sent to it',
  );
  await farm.waitFor('the other endpoint marked', async () =>
    (await engine.call('instances.list', {})).some((i) => i.name === 'not-host-set' && i.lastError === KEY_WITHHELD),
  );
  const card = (await engine.call('instances.list', {})).find((i) => i.name === 'not-host-set');
  assert.equal(card?.health, 'unhealthy');
  assert.deepEqual(notLocal.heard, [], 'no request at all went to the base not chosen on the host');
});

test("a foreign base's answer is never shown back: an endpoint's lastError carries the status and route only", async (t) => {
  const echo = 'INTERNAL-ADMIN-PAGE secret=hunter2';
  const fake = await recordingRunpod(t, (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(echo);
  });
  const farm = await farmFor(t, { instances: [], start: false });
  await farm.engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
  await farm.engine.call('cloud.addRunpod', {
    name: 'echo',
    endpointId: 'ep1',
    apiBase: fake.apiBase,
    pricePerHourUsd: 1,
  });
  farm.startScheduler();
  let lastError: string | null = null;
  await farm.waitFor('the endpoint marked unhealthy', async () => {
    lastError = (await farm.engine.call('instances.list', {}))[0]?.lastError ?? null;
    return lastError !== null;
  });
  assert.equal(lastError, 'GET /health answered HTTP 500: RunPod had a server error');
  assert.ok(!farm.logs().join('\n').includes('hunter2'), 'nor in the log');
});

test("changing an endpoint's base forgets the key for it, whoever writes the row, unless the same write marks it set on the host", async (t) => {
  const { engine } = await engineFor(t);
  const v = await engine.call('cloud.addRunpod', {
    name: 'rp',
    endpointId: 'ep1',
    apiBase: 'http://127.0.0.1:9/v2',
    pricePerHourUsd: 1,
  });
  const local = (): number =>
    (engine.db.one('SELECT api_base_local AS l FROM instances WHERE id = ?', v.id) as { l: number }).l;
  assert.equal(local(), 1, 'set on the host');
  engine.db.run('UPDATE instances SET price_per_hour_usd = 2 WHERE id = ?', v.id);
  assert.equal(local(), 1, 'another column changed: the mark stays');
  engine.db.run("UPDATE instances SET api_base = 'http://10.9.9.9/v2' WHERE id = ?", v.id);
  assert.equal(local(), 0, 'a new base: the key is not sent there');
  engine.db.run("UPDATE instances SET api_base = 'http://127.0.0.1:9/v2', api_base_local = 1 WHERE id = ?", v.id);
  assert.equal(local(), 1, 'a base set on the host in the same write keeps its mark');
});
