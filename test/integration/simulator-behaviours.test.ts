// Behaviour words and instance faults of the simulator (SPEC §11): each is driven over the real
// HTTP/WebSocket surface and checked against what a client and the simulator's counts observe.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimInstance, type SimInstance, type SimInstanceOptions } from '../simulator/index.js';
import { SimInstanceImpl } from '../simulator/instance.js';
import { http, runToHistory, type HttpAnswer } from '../simulator/testing/replay.js';
import { WsClients, withTimeout } from '../simulator/testing/ws-clients.js';
import { waitUntil } from '../helpers/wait.js';
import { SDXL_CKPT, sdGraph as sdGraphOf } from '../helpers/sd-graph.js';

const graph = (color = 7, prefix = 'beh'): Record<string, unknown> => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
});

/** A small SD graph (96×80) for the words about checkpoints, steps and the cache. */
const sdGraph = (ckpt = SDXL_CKPT, steps = 5): Record<string, unknown> =>
  sdGraphOf({ ckpt, steps, width: 96, height: 80, seed: 42, prompt: 'a castle', negative: 'blurry', prefix: 'sd' });

interface Ctx {
  sim: SimInstance;
  ws: WsClients;
}

async function withSim(opts: SimInstanceOptions, fn: (c: Ctx) => Promise<void>): Promise<void> {
  const sim = await startSimInstance({ duration: { fixedMs: 10 }, ...opts });
  const ws = new WsClients(sim.url);
  try {
    await fn({ sim, ws });
  } finally {
    ws.closeAll();
    await sim.close();
  }
}

async function post(
  sim: SimInstance,
  body: Record<string, unknown>,
): Promise<{ status: number; json: any; text: string }> {
  const r = await http(sim.url, 'POST', '/prompt', JSON.stringify(body), { 'Content-Type': 'application/json' });
  return { status: r.status, json: r.json, text: r.text };
}

/** The simulator's counts change without any frame to wake on, so they are re-checked (bounded). */
function waitCounts(
  sim: SimInstance,
  id: string,
  pred: (c: ReturnType<SimInstance['counts']>) => boolean,
): Promise<boolean> {
  return waitUntil(() => pred(sim.counts(id)), {
    what: `counts of ${id}`,
    timeoutMs: 5000,
    detail: () => JSON.stringify(sim.counts(id)),
  });
}

/** An answer from the instance once it answers again (refused connections while it restarts). */
function answerOnceUp(
  sim: SimInstance,
  path: string,
  accept: (r: HttpAnswer) => boolean,
  what: string,
): Promise<HttpAnswer> {
  return waitUntil(
    () =>
      http(sim.url, 'GET', path).then(
        (r) => (accept(r) ? r : null),
        () => null,
      ),
    { what, timeoutMs: 5000 },
  );
}

/** Client A posts a prompt whose script word closes A's socket; resolves with the prompt id once it has. */
async function postUntilSocketCloses({ sim, ws }: Ctx): Promise<string> {
  const sock = await ws.open('A', '/ws?clientId=a');
  const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  const { json } = await post(sim, { prompt: graph(), client_id: 'a' });
  await withTimeout(closed, 5000, 'the socket to close');
  return json.prompt_id as string;
}

const finished =
  (id: string) =>
  (f: { type: string; data: Record<string, unknown> }): boolean =>
    f.type === 'executing' && f.data['node'] === null && f.data['prompt_id'] === id;

test("the 'oom' word ends the prompt with a torch.OutOfMemoryError carrying ComfyUI's OOM marker", async () => {
  await withSim({ script: ['oom'] }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: graph(), client_id: 'a' });
    const err = await ws.waitFor('A', (f) => f.type === 'execution_error');
    assert.equal(err.data['exception_type'], 'torch.OutOfMemoryError');
    assert.match(String(err.data['exception_message']), /This error means you ran out of memory on your GPU\./);
    await ws.waitFor('A', finished(json.prompt_id));
    assert.deepEqual(sim.counts(json.prompt_id), { received: 1, executed: 0, interrupted: 0, failed: 1 });
    const h = await http(sim.url, 'GET', `/history/${json.prompt_id}`);
    assert.equal((h.json as any)[json.prompt_id].status.status_str, 'error');
  });
});

test("the 'error' word raises a non-OOM RuntimeError", async () => {
  await withSim({ script: ['error'] }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    await post(sim, { prompt: graph(), client_id: 'a' });
    const err = await ws.waitFor('A', (f) => f.type === 'execution_error');
    assert.equal(err.data['exception_type'], 'RuntimeError');
    assert.doesNotMatch(String(err.data['exception_message']), /out of memory/i);
  });
});

test("the 'drop' word closes the client's socket mid-prompt but the prompt still completes once", async () => {
  await withSim({ script: ['drop'] }, async ({ sim, ws }) => {
    const id = await postUntilSocketCloses({ sim, ws });
    assert.ok(!ws.of('A').some(finished(id)), 'the dropped client must not see the end');
    await waitCounts(sim, id, (c) => c.executed === 1);
    const c = sim.counts(id);
    assert.deepEqual(c, { received: 1, executed: 1, interrupted: 0, failed: 0 });
  });
});

test("the 'hang' word keeps the prompt running until a targeted interrupt", async () => {
  await withSim({ script: ['hang'] }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: graph(), client_id: 'a' });
    const id = json.prompt_id as string;
    await ws.waitFor('A', (f) => f.type === 'executing' && f.data['node'] === '2');
    // An interrupt for another id is ignored: still running afterwards.
    await http(sim.url, 'POST', '/interrupt', JSON.stringify({ prompt_id: 'someone-else' }));
    const q = await http(sim.url, 'GET', '/queue');
    assert.equal((q.json as any).queue_running[0][1], id);
    await http(sim.url, 'POST', '/interrupt', JSON.stringify({ prompt_id: id }));
    const intr = await ws.waitFor('A', (f) => f.type === 'execution_interrupted');
    assert.equal(intr.data['node_id'], '2');
    await ws.waitFor('A', finished(id));
    assert.equal(sim.counts(id).interrupted, 1);
  });
});

test("the '500' word answers the 500 text page and queues nothing; 'invalid' answers a 400 with node errors", async () => {
  await withSim({ script: ['500', 'invalid'] }, async ({ sim }) => {
    const a = await post(sim, { prompt: graph() });
    assert.equal(a.status, 500);
    assert.equal(a.text, '500 Internal Server Error\n\nServer got itself in trouble');
    const b = await post(sim, { prompt: sdGraph() });
    assert.equal(b.status, 400);
    assert.equal(b.json.error.type, 'prompt_outputs_failed_validation');
    assert.equal(Object.values(b.json.node_errors as Record<string, any>)[0].errors[0].type, 'value_not_in_list');
    const q = await http(sim.url, 'GET', '/queue');
    assert.deepEqual(q.json, { queue_running: [], queue_pending: [] });
    assert.deepEqual(sim.allCounts(), {});
  });
});

test("the 'slow' word makes a prompt take ten times its duration", async () => {
  await withSim({ script: ['ok', 'slow'], duration: { fixedMs: 20 } }, async ({ sim, ws }) => {
    // The simulator's own time, measured instead of waited for: each sleep it asks for is added
    // to the prompt running then, and returns at once.
    assert.ok(sim instanceof SimInstanceImpl);
    const core = sim.core;
    const asked = new Map<string, number>();
    core.sleep = (ms) => {
      const id = String(core.run.promptId);
      asked.set(id, (asked.get(id) ?? 0) + ms);
      return Promise.resolve();
    };
    await ws.open('A', '/ws?clientId=a');
    const ok = (await post(sim, { prompt: graph(1), client_id: 'a' })).json.prompt_id as string;
    const slow = (await post(sim, { prompt: graph(2), client_id: 'a' })).json.prompt_id as string;
    await ws.waitFor('A', finished(slow));
    assert.equal(sim.counts(slow).executed, 1);
    assert.equal(Math.round(asked.get(ok)!), 20, 'an ordinary prompt takes its duration');
    assert.equal(Math.round(asked.get(slow)!), 200, 'the slow one ten times as long');
  });
});

test("the 'busy 2' word queues two prompts of another client ahead of this one", async () => {
  await withSim({ script: ['busy 2'] }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: graph(), client_id: 'a' });
    const starts: string[] = [];
    await ws.waitFor('A', finished(json.prompt_id));
    const hist = (await http(sim.url, 'GET', '/history')).json as Record<string, any>;
    for (const [id, e] of Object.entries(hist))
      starts.push(`${id === json.prompt_id ? 'mine' : e.prompt[3].client_id}`);
    assert.deepEqual(starts, ['sim-foreign-sim', 'sim-foreign-sim', 'mine']);
    assert.equal(Object.values(sim.allCounts()).filter((c) => c.executed === 1).length, 3);
  });
});

test('a prompt without client_id gets no execution_start, only broadcast frames', async () => {
  await withSim({}, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: graph() });
    await waitCounts(sim, json.prompt_id, (c) => c.executed === 1);
    await ws.waitUntil(() => ws.of('A').filter((f) => f.type === 'status').length >= 4, 5000, 'final status');
    assert.deepEqual([...new Set(ws.of('A').map((f) => f.type))].sort(), ['progress_state', 'status']);
  });
});

test("the 'crash' word resets every connection and loses the queue; restart() comes back empty", async () => {
  await withSim({ script: ['crash'] }, async ({ sim, ws }) => {
    const id = await postUntilSocketCloses({ sim, ws });
    await assert.rejects(http(sim.url, 'GET', '/queue'));
    assert.deepEqual(sim.counts(id), { received: 1, executed: 0, interrupted: 0, failed: 0 });
    await sim.restart();
    assert.deepEqual((await http(sim.url, 'GET', '/history')).json, {});
    assert.equal((await post(sim, { prompt: graph(9) })).json.number, 0);
  });
});

test("the 'restart' word answers the POST, then wipes history and resets the counter", async () => {
  await withSim({ script: ['ok', 'ok', 'restart'] }, async ({ sim }) => {
    await runToHistory(sim.url, { prompt: graph(1) });
    await runToHistory(sim.url, { prompt: graph(2) });
    const r = await post(sim, { prompt: graph(3) });
    assert.equal(r.status, 200);
    assert.equal(r.json.number, 2);
    // The restart happens right after the answer: wait until the fresh process answers.
    const fresh = await answerOnceUp(sim, '/history', (h) => JSON.stringify(h.json) === '{}', 'an empty history');
    assert.deepEqual(fresh.json, {});
    assert.equal((await post(sim, { prompt: graph(4) })).json.number, 0);
    assert.equal(sim.counts(r.json.prompt_id).executed, 0);
  });
});

test('a partition makes requests hang while execution continues; healing answers them', async () => {
  await withSim({ duration: { fixedMs: 40 } }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: graph(), client_id: 'a' });
    await ws.waitFor('A', (f) => f.type === 'execution_start');
    sim.partition(true);
    const before = ws.of('A').length;
    const pending = http(sim.url, 'GET', `/history/${json.prompt_id}`);
    let answered = false;
    void pending.then(
      () => {
        answered = true;
      },
      () => {
        answered = true;
      },
    );
    // Execution keeps going behind the partition: the counts (our side channel) show it finish.
    await waitCounts(sim, json.prompt_id, (c) => c.executed === 1);
    assert.equal(answered, false, 'a request during the partition must not be answered');
    assert.equal(ws.of('A').length, before, 'no frames during the partition');
    const ctl = await http(sim.url, 'GET', '/__sim/counts');
    assert.equal((ctl.json as any)[json.prompt_id].executed, 1, 'control routes still answer');
    sim.partition(false);
    const h = await withTimeout(pending, 5000, 'parked request');
    assert.equal(Object.keys(h.json as object)[0], json.prompt_id);
    await ws.waitFor('A', finished(json.prompt_id));
  });
});

test('control routes set the script and inject faults from another process', async () => {
  await withSim({}, async ({ sim }) => {
    const s = await http(sim.url, 'POST', '/__sim/script', JSON.stringify({ words: ['500', 'ok'] }));
    assert.deepEqual(s.json, { remaining: 2 });
    assert.equal((await post(sim, { prompt: graph() })).status, 500);
    assert.equal((await http(sim.url, 'POST', '/__sim/script', JSON.stringify({ words: ['nonsense'] }))).status, 400);
    const f = await http(sim.url, 'POST', '/__sim/fault', JSON.stringify({ fault: 'restart' }));
    assert.equal(f.status, 200);
    const again = await answerOnceUp(
      sim,
      '/prompt',
      (r) => r.status === 200,
      'the instance to answer again after a restart fault',
    );
    assert.equal(again.status, 200);
  });
});

test('a sampler sends one progress frame per step and the PNG has the latent size', async () => {
  await withSim({ duration: { fixedMs: 10, modelLoadMs: 5 } }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const { json } = await post(sim, { prompt: sdGraph(undefined, 6), client_id: 'a' });
    await ws.waitFor('A', finished(json.prompt_id));
    const prog = ws.of('A').filter((f) => f.type === 'progress');
    assert.deepEqual(
      prog.map((f) => f.data['value']),
      [1, 2, 3, 4, 5, 6],
    );
    assert.ok(prog.every((f) => f.data['max'] === 6 && f.data['node'] === '3'));
    const executed = ws.of('A').find((f) => f.type === 'executed')!;
    const file = (executed.data['output'] as any).images[0].filename as string;
    const view = await http(sim.url, 'GET', `/view?filename=${file}&type=output`);
    assert.equal(view.contentType, 'image/png');
    const { PNG } = await import('pngjs');
    const png = PNG.sync.read(Buffer.from(await (await fetch(`${sim.url}/view?filename=${file}`)).arrayBuffer()));
    assert.deepEqual([png.width, png.height], [96, 80]);
  });
});

test('VRAM held by other processes shows as not usable and makes the sampler run out of memory', async () => {
  await withSim({ vramTotalGb: 16 }, async ({ sim, ws }) => {
    const stats = async (): Promise<any> => ((await http(sim.url, 'GET', '/system_stats')).json as any).devices[0];
    const GB = 1024 ** 3;
    sim.setVramOther(3);
    let d = await stats();
    const notUsable = d.vram_total - d.vram_free - d.torch_vram_total + d.torch_vram_free;
    assert.ok(Math.abs(notUsable - 3.4 * GB) < 1e6, `not usable ${notUsable / GB} GB`);
    await runToHistory(sim.url, { prompt: sdGraph() });
    d = await stats();
    assert.ok(d.torch_vram_total - d.torch_vram_free >= 6 * GB, 'the loaded checkpoint is active torch memory');
    sim.setVramOther(8);
    await ws.open('A', '/ws?clientId=a');
    await post(sim, { prompt: sdGraph('sd15/v1-5-pruned-emaonly.safetensors'), client_id: 'a' });
    const err = await ws.waitFor('A', (f) => f.type === 'execution_error');
    assert.equal(err.data['exception_type'], 'torch.OutOfMemoryError');
    assert.equal(err.data['node_type'], 'KSampler');
  });
});

test("protocol 'new' rejects a non-UUID prompt_id and reports a missing node type", async () => {
  await withSim({ protocol: 'new' }, async ({ sim }) => {
    const a = await post(sim, { prompt: graph(), prompt_id: 'not-a-uuid' });
    assert.equal(a.status, 400);
    assert.equal(a.json.error.type, 'invalid_prompt_id');
    const b = await post(sim, {
      prompt: { '1': { class_type: 'VHS_VideoCombine', inputs: {}, _meta: { title: 'Video Combine' } } },
    });
    assert.equal(b.json.error.type, 'missing_node_type');
    assert.deepEqual(b.json.error.extra_info, {
      node_id: '1',
      class_type: 'VHS_VideoCombine',
      node_title: 'Video Combine',
    });
    const c = await post(sim, { prompt: graph(), prompt_id: '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11' });
    assert.equal(c.json.prompt_id, '8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11');
  });
});

test('a model missing from the instance is a value_not_in_list error on the loader', async () => {
  await withSim({ models: { checkpoints: ['only_this.safetensors'] } }, async ({ sim }) => {
    const r = await post(sim, { prompt: sdGraph('sd_xl_base_1.0.safetensors') });
    assert.equal(r.status, 400);
    assert.equal(r.json.node_errors['4'].errors[0].type, 'value_not_in_list');
    assert.equal(
      r.json.node_errors['4'].errors[0].details,
      "ckpt_name: 'sd_xl_base_1.0.safetensors' not in ['only_this.safetensors']",
    );
    const info = (await http(sim.url, 'GET', '/object_info/CheckpointLoaderSimple')).json as any;
    assert.deepEqual(info.CheckpointLoaderSimple.input.required.ckpt_name[0], ['only_this.safetensors']);
  });
});

test('uploading the same name with different content is stored as "name (1).png"', async () => {
  await withSim({}, async ({ sim }) => {
    const up = async (bytes: string): Promise<any> => {
      const form = new FormData();
      form.append('image', new Blob([bytes], { type: 'image/png' }), 'plate.png');
      return (await fetch(`${sim.url}/upload/image`, { method: 'POST', body: form })).json();
    };
    assert.deepEqual(await up('one'), { name: 'plate.png', subfolder: '', type: 'input' });
    assert.deepEqual(await up('one'), { name: 'plate.png', subfolder: '', type: 'input' });
    assert.deepEqual(await up('two'), { name: 'plate (1).png', subfolder: '', type: 'input' });
  });
});

test('a PreviewImage result is served by /view as a temp PNG with distinct names per prompt', async () => {
  await withSim({ duration: { fixedMs: 0 } }, async ({ sim, ws }) => {
    await ws.open('A', '/ws?clientId=a');
    const previewGraph = (color: number): Record<string, unknown> => ({
      '1': { class_type: 'EmptyImage', inputs: { width: 24, height: 16, batch_size: 1, color } },
      '9': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
    });
    const names: string[] = [];
    for (const color of [1, 2]) {
      const { json } = await post(sim, { prompt: previewGraph(color), client_id: 'a' });
      await ws.waitFor('A', finished(json.prompt_id));
      const executed = ws.of('A').filter((f) => f.type === 'executed' && f.data['prompt_id'] === json.prompt_id)[0]!;
      const image = (executed.data['output'] as any).images[0] as { filename: string; subfolder: string; type: string };
      assert.equal(image.type, 'temp');
      names.push(image.filename);
      const view = await http(
        sim.url,
        'GET',
        `/view?filename=${encodeURIComponent(image.filename)}&type=temp&subfolder=${image.subfolder}`,
      );
      assert.equal(view.status, 200);
      assert.equal(view.contentType, 'image/png');
      const { PNG } = await import('pngjs');
      const png = PNG.sync.read(
        Buffer.from(
          await (await fetch(`${sim.url}/view?filename=${encodeURIComponent(image.filename)}&type=temp`)).arrayBuffer(),
        ),
      );
      assert.deepEqual([png.width, png.height], [24, 16]);
      // Not an output: the same name under type=output is not found.
      assert.equal(
        (await http(sim.url, 'GET', `/view?filename=${encodeURIComponent(image.filename)}&type=output`)).status,
        404,
      );
    }
    assert.notEqual(names[0], names[1]);
  });
});
