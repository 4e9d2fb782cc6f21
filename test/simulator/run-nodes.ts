// The nodes of one prompt, in ComfyUI's run order. A cached node only re-sends its UI output; a
// node that runs sends progress_state(running) → executing → (progress_state + progress)×steps for
// a sampler → executed if it has UI → progress_state(finished). The interrupt flag is checked when
// a node starts and on every sampler step (cooperative), and a behaviour word strikes at the
// "work node" (the first sampler, else the last non-output node that runs).

import { Aborted, type CacheEntry } from './exec-host.js';
import { Failed, Interrupted, outOfMemory, RUNTIME_MESSAGE } from './faults.js';
import { checkpointOf, evaluateNode, NodeFailure, runOrder, type SimValue } from './graph.js';
import { inputImageSize } from './images.js';
import type { PromptRun } from './prompt-run.js';
import { saveOutputs } from './save-outputs.js';
import { isLink } from './validate.js';

/** Ids that will run (not cached) in run order, and the node a behaviour word strikes at. */
interface Plan {
  order: string[];
  toRun: string[];
  workNode: string | undefined;
}

/** The ids `execution_cached` lists: every node of the graph with a cache hit. */
export function cachedNodes(run: PromptRun): string[] {
  return Object.keys(run.graph).filter((id) => run.cached(id) !== undefined);
}

function plan(run: PromptRun): Plan {
  const order = runOrder(run.graph, run.outputs, (id) => run.cached(id) !== undefined);
  const toRun = order.filter((id) => run.cached(id) === undefined);
  const workNode =
    toRun.find((id) => run.classOf(id)?.traits.sampler) ??
    [...toRun].reverse().find((id) => !run.classOf(id)?.info.output_node) ??
    toRun[toRun.length - 1];
  return { order, toRun, workNode };
}

/** Runs every staged node; throws Interrupted / Failed (reported by the caller) or Aborted. */
export async function runNodes(run: PromptRun): Promise<void> {
  const p = plan(run);
  for (const id of p.order) {
    const hit = run.cached(id);
    if (hit) replayCached(run, id, hit);
    else await runNode(run, id, p);
  }
}

/** A cached node staged as an output: its UI output is sent again, nothing is executed. */
function replayCached(run: PromptRun, id: string, hit: CacheEntry): void {
  run.toClient('executed', { node: id, display_node: id, output: hit.ui, prompt_id: run.promptId });
  run.setProgress(id, 1, 1, 'finished');
  run.values.set(id, hit.value);
  if (hit.ui) run.recordUi(id, hit.ui);
  run.executed.push(id);
}

async function runNode(run: PromptRun, id: string, p: Plan): Promise<void> {
  const { host } = run;
  run.setProgress(id, 0, 1, 'running');
  host.run.lastNodeId = id;
  run.toClient('executing', { node: id, display_node: id, prompt_id: run.promptId });
  if (host.interrupted()) throw new Interrupted(id);
  const isWork = id === p.workNode;
  if (isWork) strikeBeforeWork(run);
  // Drawn only now (after crash/drop): seeded durations must come out in the same order.
  const ms = nodeMs(run, id, p.toRun.length);
  if (isWork) await strikeAtWork(run, id, ms);
  if (run.classOf(id).traits.sampler) await sample(run, id, ms);
  else await host.sleep(ms, false);
  const value = evaluate(run, id);
  run.values.set(id, value);
  const ui = await saveIfOutput(run, id);
  host.cache.set(run.sigs.get(id)!, { value, ui });
  run.setProgress(id, 1, 1, 'finished');
  run.executed.push(id);
}

/** `crash` kills the instance at the work node; `drop` cuts the client's socket (the run goes on). */
function strikeBeforeWork(run: PromptRun): void {
  const { behaviour, host } = run;
  if (behaviour.kind === 'crash') {
    host.crash();
    throw new Aborted();
  }
  if (behaviour.kind === 'drop' && run.clientId !== null) host.hub.socketOf(run.clientId)?.terminate();
}

/** `hang` waits for an interrupt; `oom` / `error` fail halfway through the node's time. */
async function strikeAtWork(run: PromptRun, id: string, ms: number): Promise<void> {
  const { behaviour, host } = run;
  if (behaviour.kind === 'hang') {
    await host.sleep(Number.POSITIVE_INFINITY, true);
    throw new Interrupted(id);
  }
  if (behaviour.kind !== 'oom' && behaviour.kind !== 'error') return;
  await host.sleep(ms / 2, false);
  if (behaviour.kind === 'oom') throw outOfMemory(run, id);
  throw new Failed(id, 'RuntimeError', RUNTIME_MESSAGE);
}

/** The node's share of the prompt's time, plus a checkpoint load when a loader switches models. */
function nodeMs(run: PromptRun, id: string, nodesInRun: number): number {
  const { host } = run;
  const node = run.graph[id]!;
  const def = run.classOf(id);
  let ms = host.nodeMs(String(node.class_type), nodesInRun, run.behaviour.kind === 'slow');
  if (!def.traits.checkpointInput) return ms;
  const ckpt = String(node.inputs?.[def.traits.checkpointInput]);
  if (host.vram.loadedCkpt !== ckpt) {
    ms += host.modelLoadMs();
    host.vram.load(ckpt);
  }
  return ms;
}

/** A sampler: loads its model if needed, may OOM, then one progress tick per step. */
async function sample(run: PromptRun, id: string, nodeTime: number): Promise<void> {
  const { host } = run;
  const node = run.graph[id]!;
  let ms = nodeTime;
  const ckpt = checkpointOf(run.graph, id);
  if (ckpt !== null && host.vram.loadedCkpt !== ckpt) {
    ms += host.modelLoadMs();
    host.vram.load(ckpt);
  }
  const pixels = latentPixels(run, node.inputs?.['latent_image']);
  const steps = Math.max(1, Math.floor(Number(node.inputs?.['steps'] ?? 20)) || 20);
  if (host.vram.wouldOom(pixels)) {
    // As on a GPU: the weights are in, the first step's activations do not fit.
    await host.sleep(ms / steps, true);
    throw outOfMemory(run, id);
  }
  host.vram.startSampling(pixels);
  try {
    for (let step = 1; step <= steps; step++) await tick(run, id, step, steps, ms / steps);
  } finally {
    host.vram.stopSampling();
  }
}

/** width × height × batch of the latent a sampler denoises (0 when not known): its activations scale with it. */
function latentPixels(run: PromptRun, input: unknown): number {
  if (!isLink(input)) return 0;
  const latent = run.valueOf(String(input[0]))?.latent;
  return latent ? latent.width * latent.height * latent.batch : 0;
}

async function tick(run: PromptRun, id: string, step: number, steps: number, ms: number): Promise<void> {
  await run.host.sleep(ms, true);
  if (run.host.interrupted()) throw new Interrupted(id);
  run.setProgress(id, step, steps, 'running');
  run.toClientOrAll('progress', { value: step, max: steps, prompt_id: run.promptId, node: id });
}

/** The node's simulated value; a NodeFailure (e.g. ImageToMask 'alpha' of RGB) fails the prompt. */
function evaluate(run: PromptRun, id: string): SimValue {
  const node = run.graph[id]!;
  const inputs = node.inputs ?? {};
  const linked = (name: string): SimValue | undefined => {
    const v = inputs[name];
    return isLink(v) ? run.valueOf(String(v[0])) : undefined;
  };
  try {
    return evaluateNode(String(node.class_type), inputs, linked, (name) => inputImageSize(run.host.dirs, name));
  } catch (e) {
    if (e instanceof NodeFailure) throw new Failed(id, e.exceptionType, `${e.message}\n`);
    throw e;
  }
}

/** Output nodes write their files and report the UI dict (`executed`, history outputs). */
async function saveIfOutput(run: PromptRun, id: string): Promise<Record<string, unknown> | null> {
  const def = run.classOf(id);
  if (!def.traits.saves) return null;
  const inputs = run.graph[id]!.inputs ?? {};
  const src = inputs['images'];
  const image = (isLink(src) ? run.valueOf(String(src[0]))?.image : undefined) ?? {
    width: 64,
    height: 64,
    alpha: false,
    batch: 1,
  };
  const ui = await saveOutputs(run.host.dirs, def.traits, inputs, image, run.promptId, String(run.sigs.get(id)));
  run.recordUi(id, ui);
  run.toClient('executed', { node: id, display_node: id, output: ui, prompt_id: run.promptId });
  return ui;
}
