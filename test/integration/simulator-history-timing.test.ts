// The window between `execution_success` and the history write (comfyui-protocol.md §3 "History
// timing"): a client that asks /history the moment success arrives can miss the entry while /queue
// still lists the prompt as running; once `executing {node:null}` has arrived the entry is there.
// A long fixed delay makes the window wide enough to hit deterministically; 0 closes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimInstance, type SimInstance, type SimInstanceOptions } from '../simulator/index.js';
import { http } from '../simulator/testing/replay.js';
import { WsClients, type WsFrame } from '../simulator/testing/ws-clients.js';

const graph = (color: number): Record<string, unknown> => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'window' } },
});

interface Queue {
  queue_running: Array<[number, string]>;
  queue_pending: unknown[];
}

async function withSim(
  opts: SimInstanceOptions,
  fn: (sim: SimInstance, ws: WsClients) => Promise<void>,
): Promise<void> {
  const sim = await startSimInstance({ duration: { fixedMs: 10 }, ...opts });
  const ws = new WsClients(sim.url);
  try {
    await ws.open('A', '/ws?clientId=a');
    await fn(sim, ws);
  } finally {
    ws.closeAll();
    await sim.close();
  }
}

async function post(sim: SimInstance, color: number): Promise<string> {
  const r = await http(sim.url, 'POST', '/prompt', JSON.stringify({ prompt: graph(color), client_id: 'a' }), {
    'Content-Type': 'application/json',
  });
  assert.equal(r.status, 200, r.text);
  return (r.json as { prompt_id: string }).prompt_id;
}

const ofPrompt =
  (id: string, type: string) =>
  (f: WsFrame): boolean =>
    f.type === type && f.data['prompt_id'] === id;
const finished =
  (id: string) =>
  (f: WsFrame): boolean =>
    f.type === 'executing' && f.data['node'] === null && f.data['prompt_id'] === id;

/** What /history/{id}, /history and /queue say about `id` right now. */
async function look(sim: SimInstance, id: string): Promise<{ entry: boolean; inList: boolean; running: boolean }> {
  const one = (await http(sim.url, 'GET', `/history/${id}`)).json as Record<string, unknown>;
  const all = (await http(sim.url, 'GET', '/history')).json as Record<string, unknown>;
  const q = (await http(sim.url, 'GET', '/queue')).json as Queue;
  return { entry: id in one, inList: id in all, running: q.queue_running.some((item) => item[1] === id) };
}

test('a GET /history on execution_success misses the entry while /queue lists the prompt running; after executing{node:null} it is there', {
  timeout: 20000,
}, async () => {
  const delayMs = 300;
  await withSim({ historyDelayMs: delayMs }, async (sim, ws) => {
    const id = await post(sim, 1);
    await ws.waitFor('A', ofPrompt(id, 'execution_success'));
    const statusesBefore = ws.of('A').filter((f) => f.type === 'status').length;
    assert.deepEqual(await look(sim, id), { entry: false, inList: false, running: true });
    assert.deepEqual((await http(sim.url, 'GET', '/prompt')).json, { exec_info: { queue_remaining: 1 } });
    assert.equal(
      ws.of('A').filter((f) => f.type === 'status').length,
      statusesBefore,
      'no status frame inside the window',
    );

    await ws.waitFor('A', finished(id));
    assert.deepEqual(await look(sim, id), { entry: true, inList: true, running: false });
    // After success: exactly one status (queue_remaining 0, the history write), then executing{node:null}.
    const frames = ws.of('A');
    const tail = frames.slice(frames.findIndex(ofPrompt(id, 'execution_success'))).map((f) => f.type);
    assert.deepEqual(tail, ['execution_success', 'status', 'executing']);
    assert.deepEqual(frames.at(-2)?.data, { status: { exec_info: { queue_remaining: 0 } } });
  });
});

test('the next queued prompt starts only after the history write and executing{node:null} of the one before', {
  timeout: 20000,
}, async () => {
  await withSim({ historyDelayMs: 100 }, async (sim, ws) => {
    const first = await post(sim, 2);
    const second = await post(sim, 3);
    await ws.waitFor('A', finished(second));
    const frames = ws.of('A');
    const success1 = frames.findIndex(ofPrompt(first, 'execution_success'));
    const end1 = frames.findIndex(finished(first));
    const start2 = frames.findIndex(ofPrompt(second, 'execution_start'));
    const between = frames.slice(success1 + 1, end1).map((f) => f.type);
    assert.deepEqual(between, ['status'], "only the history write's status between success and executing{node:null}");
    assert.ok(start2 > end1, `execution_start of the second at ${start2}, the first ended at ${end1}`);
  });
});

test('historyDelayMs 0 writes history in the same turn as execution_success (the old behaviour)', {
  timeout: 20000,
}, async () => {
  await withSim({ historyDelayMs: 0 }, async (sim, ws) => {
    for (const color of [4, 5, 6]) {
      const id = await post(sim, color);
      await ws.waitFor('A', ofPrompt(id, 'execution_success'));
      assert.deepEqual(await look(sim, id), { entry: true, inList: true, running: false });
    }
  });
});
