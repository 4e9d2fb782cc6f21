/**
 * The ComfyUI client contract suite: what Shotfarm relies on from a ComfyUI server, checked with
 * model-free core nodes only (EmptyImage, ImageInvert, ImageBlur, ImageScale, ImageToMask,
 * MaskToImage, SaveImage). By default it runs against the simulator; with COMFYUI_URL it runs against a real
 * server: `COMFYUI_URL=http://127.0.0.1:8188 npm run test:contract`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { missingNodeClassType } from '../../electron/engine/comfy/responses.js';
import { vramBreakdown } from '../../electron/engine/comfy/vram.js';
import { PromptFollower } from '../../electron/engine/comfy/ws-follower.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';

let sim: SimInstance | null = null;
let url = process.env.COMFYUI_URL ?? '';
let client: ComfyClient;
const tmp = makeTempDir('shotfarm-contract-');

before(async () => {
  if (!url) {
    // Blurs take a while on the simulator too, so interrupt and queue cases have a running prompt.
    sim = await startSimInstance({ duration: { fixedMs: 30, perClassMs: { ImageBlur: 150 } } });
    url = sim.url;
  }
  client = new ComfyClient(url, { timeoutMs: 30_000 });
});
after(async () => {
  await sim?.close();
  tmp.cleanup();
});

/** A small graph; a random colour keeps a real server's cache from answering instead of running. */
function graph(prefix: string, blurs = 0) {
  const g: Record<string, { class_type: string; inputs: Record<string, unknown> }> = {
    '1': {
      class_type: 'EmptyImage',
      inputs: { width: 64, height: 64, batch_size: 1, color: Math.floor(Math.random() * 0xffffff) },
    },
  };
  let last = '1';
  for (let i = 0; i < blurs; i++) {
    g[`${10 + i}`] = { class_type: 'ImageBlur', inputs: { image: [last, 0], blur_radius: 15, sigma: 10 } };
    last = `${10 + i}`;
  }
  g['2'] = { class_type: 'ImageInvert', inputs: { image: [last, 0] } };
  g['3'] = {
    class_type: 'ImageScale',
    inputs: { image: ['2', 0], upscale_method: 'nearest-exact', width: 32, height: 32, crop: 'disabled' },
  };
  g['9'] = { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: prefix } };
  return g;
}

/** The first truthy answer of `fn` (a real server answers slower: up to a minute, re-asked every 100 ms). */
function until<T>(what: string, fn: () => Promise<T | null | undefined | false>): Promise<T> {
  return waitUntil(fn, { what, timeoutMs: 60_000, pollMs: 100 });
}

test('system_stats reports a device whose VRAM breakdown adds up', async () => {
  const stats = await client.getSystemStats();
  const v = vramBreakdown(stats);
  assert.ok(v, 'at least one device');
  assert.ok(v.totalBytes >= 0 && v.usableByComfyBytes <= v.totalBytes);
  assert.equal(v.usableByComfyBytes + v.otherProcessesBytes, v.totalBytes);
});

test('object_info knows the core nodes and answers {} (null) for an unknown class', async () => {
  for (const cls of ['EmptyImage', 'ImageInvert', 'ImageBlur', 'ImageScale', 'ImageToMask', 'SaveImage']) {
    assert.ok(await client.getObjectInfoClass(cls), cls);
  }
  assert.equal(await client.getObjectInfoClass('NoSuchNode_Shotfarm'), null);
});

test('a prompt posted with our id and client id runs; its events, history entry and output file are ours', async () => {
  const promptId = randomUUID();
  const follower = new PromptFollower({ baseUrl: url, promptId, attemptId: 'contract' });
  try {
    await follower.ready();
    const posted = await client.postPrompt({
      prompt: graph('contract_ok'),
      promptId,
      clientId: follower.clientId!,
      extraData: { shotfarm_attempt: 'contract' },
    });
    assert.ok(posted.ok);
    assert.equal(posted.promptId, promptId);
    const seen: string[] = [];
    for await (const ev of follower as AsyncIterable<FollowEvent>) {
      if ('inRun' in ev && ev.inRun) seen.push(ev.type);
      if (ev.type === 'execution_success') break;
    }
    assert.ok(seen.includes('execution_start') && seen.includes('executing'));
    const entry = await until('the history entry', () => client.getHistory(promptId));
    assert.equal(entry.number, posted.number);
    assert.equal(entry.extraData.shotfarm_attempt, 'contract');
    assert.equal(entry.status?.statusStr, 'success');
    const image = (entry.outputs['9']!.images as { filename: string; subfolder: string; type: string }[])[0]!;
    const dest = join(tmp.path, 'out.png');
    const bytes = await client.downloadView(image, dest);
    assert.ok(bytes > 8);
    assert.deepEqual([...readFileSync(dest).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  } finally {
    follower.close();
  }
});

test('a workflow that fails validation is refused with 400 and node errors; nothing is queued', async () => {
  const g = graph('contract_bad');
  g['1']!.inputs.width = 0;
  const r = await client.postPrompt({ prompt: g, promptId: randomUUID() });
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.error.type, 'prompt_outputs_failed_validation');
    assert.ok(Object.keys(r.nodeErrors).length > 0);
  }
});

test('an unknown class is refused, naming the class, in either protocol generation', async () => {
  const g = graph('contract_unknown');
  g['2'] = { class_type: 'NoSuchNode_Shotfarm', inputs: { image: ['1', 0] } };
  const r = await client.postPrompt({ prompt: g, promptId: randomUUID() });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(missingNodeClassType(r.error), 'NoSuchNode_Shotfarm');
});

test('queue: a pending prompt can be deleted, a running one interrupted by its id', async () => {
  const running = randomUUID();
  const pending = randomUUID();
  const a = await client.postPrompt({ prompt: graph('contract_run', 12), promptId: running, clientId: 'contract-q' });
  const b = await client.postPrompt({ prompt: graph('contract_pend', 1), promptId: pending, clientId: 'contract-q' });
  assert.ok(a.ok && b.ok);
  await until('the first to run', async () => (await client.getQueue()).running.some((i) => i.promptId === running));
  const q = await client.getQueue();
  assert.ok(q.pending.some((i) => i.promptId === pending));
  await client.deleteFromQueue([pending]);
  assert.ok(!(await client.getQueue()).pending.some((i) => i.promptId === pending));
  await client.interrupt(running);
  const entry = await until('the interrupted entry', () => client.getHistory(running));
  assert.equal(entry.status?.statusStr, 'error');
  assert.ok(entry.status?.messages.some((m) => m[0] === 'execution_interrupted'));
  assert.equal(await client.getHistory(pending), null, 'a deleted prompt never reaches history');
});

test('re-posting a prompt id after clearing its history runs again under a new number', async () => {
  const id = randomUUID();
  const g = graph('contract_repost');
  const first = await client.postPrompt({ prompt: g, promptId: id });
  assert.ok(first.ok);
  await until('the first run', () => client.getHistory(id));
  await client.deleteHistory([id]);
  assert.equal(await client.getHistory(id), null);
  g['1']!.inputs.color = Math.floor(Math.random() * 0xffffff);
  const second = await client.postPrompt({ prompt: g, promptId: id });
  assert.ok(second.ok);
  assert.notEqual(second.number, first.number);
  const entry = await until('the second run', () => client.getHistory(id));
  assert.equal(entry.number, second.number);
});

test("a node that raises leaves its error and traceback in the server's log (/internal/logs/raw), stamped in naive local time — or the server does not offer its log", async () => {
  const g = graph('contract_log');
  g['4'] = { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'alpha' } };
  g['5'] = { class_type: 'MaskToImage', inputs: { mask: ['4', 0] } };
  g['6'] = { class_type: 'SaveImage', inputs: { images: ['5', 0], filename_prefix: 'contract_log' } };
  const promptId = randomUUID();
  const posted = await client.postPrompt({ prompt: g, promptId });
  assert.ok(posted.ok, 'queued');
  const entry = await until('the failed entry', () => client.getHistory(promptId));
  assert.equal(entry.status?.statusStr, 'error');
  const answer = await client.getRawLogs();
  if (!answer.ok) {
    // comfyui-protocol.md §15: /internal/ is private; an older server or a proxy answers 404.
    assert.equal(answer.status, 404);
    return;
  }
  assert.ok(answer.entries.length > 0 && answer.entries.length <= 300, 'the ring of the last 300 writes');
  for (const e of answer.entries) assert.match(e.t, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/, 'naive isoformat()');
  const all = answer.entries.map((e) => e.m).join('');
  assert.match(all, /!!! Exception during processing !!!/);
  assert.match(all, /Traceback \(most recent call last\):\n/);
});

test('an uploaded image gets a server name and can be read back from the input folder', async () => {
  const src = join(tmp.path, 'plate.png');
  writeFileSync(src, readFileSync(new URL('../../resources/samples/plates/sh010.png', import.meta.url)));
  const up = await client.uploadImage(src, { subfolder: 'shotfarm-contract', overwrite: true });
  assert.equal(up.type, 'input');
  const back = join(tmp.path, 'back.png');
  await client.downloadView({ filename: up.name, subfolder: up.subfolder, type: 'input' }, back);
  assert.deepEqual(readFileSync(back), readFileSync(src));
});
