// Runs one queue item the way ComfyUI 0.3.64's worker does, with the WebSocket order recorded in
// success.json / three_prompts_in_a_row.json:
//   execution_start → execution_cached → per node [progress_state(running), executing,
//   (progress_state + progress)×steps, executed?, progress_state(finished)] → execution_success,
// then history is written, then `status`, then `executing {node:null}` (comfyui-protocol.md §3).
// The interrupt flag is checked when a node starts and on every sampler step (cooperative).

import type { NodeClass } from './node-catalog.js';
import type { ImageDirs } from './images.js';
import { inputImageSize } from './images.js';
import { saveOutputs } from './save-outputs.js';
import { evaluateNode, checkpointOf, NodeFailure, runOrder, signatures, type SimValue } from './graph.js';
import type { HistoryEntry, PromptQueue, QueueItem } from './prompt-queue.js';
import type { WsHub } from './ws-hub.js';
import type { VramModel } from './vram.js';
import type { Behaviour } from './script.js';
import { isLink } from './validate.js';

export interface CacheEntry { value: SimValue; ui: Record<string, unknown> | null }

/** Thrown by `sleep` when the instance crashes or closes under a running prompt. */
export class Aborted extends Error {}

export interface RunState { clientId: string | null; lastNodeId: string | null; promptId: string | null }

export interface ExecHost {
  hub: WsHub;
  queue: PromptQueue;
  classes: Map<string, NodeClass>;
  dirs: ImageDirs;
  vram: VramModel;
  cache: Map<string, CacheEntry>;
  run: RunState;
  /** Resolves after `ms` (early if `interruptible` and the interrupt flag is set); rejects with Aborted on crash. */
  sleep(ms: number, interruptible: boolean): Promise<void>;
  interrupted(): boolean;
  nodeMs(classType: string, nodesInRun: number, slow: boolean): number;
  modelLoadMs(): number;
  queueInfo(): Record<string, unknown>;
  crash(): void;
}

export type Outcome = 'success' | 'error' | 'interrupted';

const OOM_MESSAGE = 'Allocation on device 0 would exceed allowed memory. (out of memory)\n' +
  'Currently allocated     : 19.71 GiB\nRequested               : 5.00 GiB\nDevice limit            : 23.99 GiB\n' +
  'Free (according to CUDA): 0 bytes\nPyTorch limit (set by user-supplied memory fraction)\n                        : 17179869184.00 GiB\n' +
  'This error means you ran out of memory on your GPU.\n\n' +
  'TIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.\n';
const RUNTIME_MESSAGE = 'Given groups=1, weight of size [320, 4, 3, 3], expected input[1, 16, 128, 128] to have 4 channels, but got 16 channels instead\n';

class Interrupted extends Error { constructor(readonly nodeId: string) { super('interrupted'); } }
class Failed extends Error {
  constructor(readonly nodeId: string, readonly exceptionType: string, readonly text: string) { super(text); }
}

function now(): number { return Date.now(); }

export async function executeItem(host: ExecHost, item: QueueItem, behaviour: Behaviour): Promise<Outcome> {
  const [, promptId, graph, extra, outputs] = item;
  const clientId = typeof extra['client_id'] === 'string' ? extra['client_id'] : null;
  const { hub } = host;
  host.run.clientId = clientId;
  host.run.promptId = promptId;
  host.run.lastNodeId = null;
  const messages: Array<[string, Record<string, unknown>]> = [];
  // `add_message`: recorded for history; sent to the client, or broadcast only when `broadcast`.
  const addMessage = (type: string, data: Record<string, unknown>, broadcast: boolean): void => {
    messages.push([type, data]);
    if (clientId !== null || broadcast) hub.send({ type, data }, clientId);
  };
  const toClient = (type: string, data: Record<string, unknown>): void => {
    if (clientId !== null) hub.send({ type, data }, clientId);
  };
  const progress = new Map<string, Record<string, unknown>>();
  const sendProgressState = (): void => {
    hub.send({ type: 'progress_state', data: { prompt_id: promptId, nodes: Object.fromEntries([...progress].map(([k, v]) => [k, { ...v }])) } }, clientId);
  };
  const setProgress = (id: string, value: number, max: number, state: string): void => {
    progress.set(id, { value, max, state, node_id: id, prompt_id: promptId, display_node_id: id, parent_node_id: null, real_node_id: id });
    sendProgressState();
  };

  const sigs = signatures(graph);
  // Scripted faults must hit a node, so such prompts ignore the cache.
  const faulty = ['error', 'oom', 'hang', 'drop', 'crash'].includes(behaviour.kind);
  const cachedOf = (id: string): CacheEntry | undefined => (faulty ? undefined : host.cache.get(sigs.get(id) ?? ''));
  addMessage('execution_start', { prompt_id: promptId, timestamp: now() }, false);
  const cachedNodes = Object.keys(graph).filter((id) => cachedOf(id) !== undefined);
  addMessage('execution_cached', { nodes: cachedNodes, prompt_id: promptId, timestamp: now() }, false);

  const order = runOrder(graph, outputs, (id) => cachedOf(id) !== undefined);
  const toRun = order.filter((id) => cachedOf(id) === undefined);
  const workNode = toRun.find((id) => host.classes.get(String(graph[id]?.class_type))?.traits.sampler)
    ?? [...toRun].reverse().find((id) => !host.classes.get(String(graph[id]?.class_type))?.info.output_node)
    ?? toRun[toRun.length - 1];
  const values = new Map<string, SimValue>();
  // Cached ancestors are not staged, their cached value feeds the nodes that do run.
  const valueOf = (id: string): SimValue | undefined => values.get(id) ?? cachedOf(id)?.value;
  const uiOutputs: Record<string, unknown> = {};
  const meta: HistoryEntry['meta'] = {};
  const executed: string[] = [];
  const slow = behaviour.kind === 'slow';
  let outcome: Outcome = 'success';
  let failure: Record<string, unknown> | null = null;

  try {
    for (const id of order) {
      const node = graph[id]!;
      const classType = String(node.class_type);
      const def = host.classes.get(classType)!;
      const hit = cachedOf(id);
      if (hit) {
        toClient('executed', { node: id, display_node: id, output: hit.ui, prompt_id: promptId });
        setProgress(id, 1, 1, 'finished');
        values.set(id, hit.value);
        if (hit.ui) { uiOutputs[id] = hit.ui; meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id }; }
        executed.push(id);
        continue;
      }
      setProgress(id, 0, 1, 'running');
      host.run.lastNodeId = id;
      toClient('executing', { node: id, display_node: id, prompt_id: promptId });
      if (host.interrupted()) throw new Interrupted(id);

      const isWork = id === workNode;
      if (isWork && behaviour.kind === 'crash') { host.crash(); throw new Aborted(); }
      if (isWork && behaviour.kind === 'drop' && clientId !== null) hub.socketOf(clientId)?.terminate();

      let ms = host.nodeMs(classType, toRun.length, slow);
      if (def.traits.checkpointInput) {
        const ckpt = String(node.inputs?.[def.traits.checkpointInput]);
        if (host.vram.loadedCkpt !== ckpt) { ms += host.modelLoadMs(); host.vram.load(ckpt); }
      }
      if (isWork && behaviour.kind === 'hang') {
        await host.sleep(Number.POSITIVE_INFINITY, true);
        throw new Interrupted(id);
      }
      if (isWork && (behaviour.kind === 'oom' || behaviour.kind === 'error')) {
        await host.sleep(ms / 2, false);
        if (behaviour.kind === 'oom') { host.vram.unload(false); throw new Failed(id, 'torch.OutOfMemoryError', OOM_MESSAGE); }
        throw new Failed(id, 'RuntimeError', RUNTIME_MESSAGE);
      }
      if (def.traits.sampler) {
        const ckpt = checkpointOf(graph, id);
        if (ckpt !== null && host.vram.loadedCkpt !== ckpt) { ms += host.modelLoadMs(); host.vram.load(ckpt); }
        if (host.vram.wouldOom()) { host.vram.unload(false); throw new Failed(id, 'torch.OutOfMemoryError', OOM_MESSAGE); }
        const steps = Math.max(1, Math.floor(Number(node.inputs?.['steps'] ?? 20)) || 20);
        host.vram.startSampling();
        try {
          for (let step = 1; step <= steps; step++) {
            await host.sleep(ms / steps, true);
            if (host.interrupted()) throw new Interrupted(id);
            setProgress(id, step, steps, 'running');
            hub.send({ type: 'progress', data: { value: step, max: steps, prompt_id: promptId, node: id } }, clientId);
          }
        } finally {
          host.vram.stopSampling();
        }
      } else {
        await host.sleep(ms, false);
      }

      let value: SimValue;
      try {
        value = evaluateNode(classType, node.inputs ?? {}, (name) => {
          const v = node.inputs?.[name];
          return isLink(v) ? valueOf(String(v[0])) : undefined;
        }, (name) => inputImageSize(host.dirs, name));
      } catch (e) {
        if (e instanceof NodeFailure) throw new Failed(id, e.exceptionType, `${e.message}\n`);
        throw e;
      }
      values.set(id, value);
      let ui: Record<string, unknown> | null = null;
      if (def.traits.saves) {
        const src = node.inputs?.['images'];
        const image = (isLink(src) ? valueOf(String(src[0]))?.image : undefined) ?? { width: 64, height: 64, alpha: false, batch: 1 };
        ui = await saveOutputs(host.dirs, def.traits, node.inputs ?? {}, image, promptId, String(sigs.get(id)));
        uiOutputs[id] = ui;
        meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id };
        toClient('executed', { node: id, display_node: id, output: ui, prompt_id: promptId });
      }
      host.cache.set(sigs.get(id)!, { value, ui });
      setProgress(id, 1, 1, 'finished');
      executed.push(id);
    }
    addMessage('execution_success', { prompt_id: promptId, timestamp: now() }, false);
  } catch (e) {
    if (e instanceof Interrupted) {
      outcome = 'interrupted';
      failure = { prompt_id: promptId, node_id: e.nodeId, node_type: String(graph[e.nodeId]?.class_type), executed, timestamp: now() };
      addMessage('execution_interrupted', failure, true);
    } else if (e instanceof Failed) {
      outcome = 'error';
      const node = graph[e.nodeId]!;
      failure = {
        prompt_id: promptId, node_id: e.nodeId, node_type: String(node.class_type), executed,
        exception_message: e.text, exception_type: e.exceptionType,
        traceback: [
          '  File "<COMFYUI_ROOT>/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(prompt_id, unique_id, obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
          '  File "<COMFYUI_ROOT>/execution.py", line 277, in process_inputs\n    result = f(**inputs)\n',
        ],
        current_inputs: currentInputs(node.inputs ?? {}, graph, host.classes),
        current_outputs: Object.keys(graph),
        timestamp: now(),
      };
      addMessage('execution_error', failure, false);
    } else {
      throw e; // Aborted (crash/close) or a bug: nothing more is sent
    }
  } finally {
    host.run.lastNodeId = null;
  }

  // Classic cache: only the entries of the prompt just run survive (`clean_unused`).
  const keep = new Set(sigs.values());
  for (const k of [...host.cache.keys()]) if (!keep.has(k)) host.cache.delete(k);

  // task_done: history first, then the `status` that announces it, then `executing {node:null}`.
  host.queue.finish({
    prompt: item,
    outputs: uiOutputs,
    status: { status_str: outcome === 'success' ? 'success' : 'error', completed: outcome === 'success', messages },
    meta,
  });
  hub.send({ type: 'status', data: { status: host.queueInfo() } }, null);
  toClient('executing', { node: null, prompt_id: promptId });
  host.run.clientId = null;
  host.run.promptId = null;
  return outcome;
}

/** `current_inputs`: input → list of values, non-scalars stringified like Python's repr. */
function currentInputs(inputs: Record<string, unknown>, graph: Record<string, { class_type?: unknown }>, classes: Map<string, NodeClass>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (!isLink(v)) { out[k] = [v]; continue; }
    const type = classes.get(String(graph[String(v[0])]?.class_type))?.info.output[Number(v[1])] ?? 'object';
    out[k] = [type === 'MODEL' ? '<comfy.model_patcher.ModelPatcher object at 0x7f3a2c1d5e10>'
      : type === 'IMAGE' || type === 'MASK' || type === 'LATENT' ? 'tensor([[[[0.0039, 0.2784, 0.8902],\n          ...]]])'
      : `<${type} object at 0x7f3a2c1d6f20>`];
  }
  return out;
}
