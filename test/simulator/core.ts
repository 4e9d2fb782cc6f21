// The in-memory ComfyUI "process": prompt counter, queue + history, node cache, loaded model,
// interrupt flag, the single worker, and the simulator's own record (counts). A crash throws all of
// it away except the counts, which are the test's record of what happened.

import { SimServerLog } from './server-log.js';
import { randomUUID } from 'node:crypto';
import type { ImageDirs } from './images.js';
import { listInputFiles } from './images.js';
import { buildCatalog, inputConfig, type NodeClass } from './node-catalog.js';
import type { ResolvedOptions } from './options.js';
import { PromptQueue, type QueueItem } from './prompt-queue.js';
import { Script, type Behaviour } from './script.js';
import { validatePrompt, type ErrorBody, type Graph, type NodeError } from './validate.js';
import { VramModel } from './vram.js';
import { WsHub } from './ws-hub.js';
import { Aborted, type CacheEntry, type ExecHost, type RunState } from './exec-host.js';
import { executeItem } from './executor.js';

export interface Counts {
  received: number;
  executed: number;
  interrupted: number;
  failed: number;
}

export type PromptAnswer = { kind: 'json'; status: number; body: unknown; after?: 'restart' } | { kind: '500' };

interface Sleeper {
  resolve: () => void;
  reject: (e: Error) => void;
  interruptible: boolean;
  stop: () => void;
}

/** Work of the "worker thread" due at `due` (performance.now() time): a prompt's history write. */
interface DueWork {
  due: number;
  promptId: string;
  run: () => void;
}

import { seededRandom } from '../../electron/engine/clock.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The engine's seeded generator (mulberry32), so random durations are reproducible. */
const prng = seededRandom;

/** The history delay draws from its own stream, so adding it left every node duration of a seed as it was. */
const HISTORY_STREAM = 0x9e3779b9;

export class SimCore {
  readonly hub = new WsHub();
  readonly counts = new Map<string, Counts>();
  /** Requests answered per route (`GET /system_stats`), control routes apart; kept across a crash like the counts. */
  readonly requests = new Map<string, number>();
  readonly script: Script;
  readonly vram: VramModel;
  /** What the server printed (ComfyUI's log ring, `/internal/logs/raw`); starts empty again after a restart. */
  log: SimServerLog;
  queue = new PromptQueue();
  run: RunState = { clientId: null, lastNodeId: null, promptId: null };
  private counter = 0;
  private cache = new Map<string, CacheEntry>();
  private interruptFlag = false;
  private sleepers = new Set<Sleeper>();
  private dueWork = new Set<DueWork>();
  private behaviours = new WeakMap<QueueItem, Behaviour>();
  private working = false;
  /** Bumped by every crash, so a run from before it can never touch the new state. */
  private gen = 0;
  private pendingFree = { unload: false, free: false };
  private random: () => number;
  private historyRandom: () => number;
  /** Set by the instance: what a `crash` word does. */
  onCrashWord: () => void = () => {};
  /** Read-only tap (benchmarks): called right after a prompt's history entry is written. */
  onHistoryWritten: ((promptId: string) => void) | null = null;
  /** Read-only tap (benchmarks): a request (`path`) was answered before `promptId`'s history write. */
  onRequestInWindow: ((promptId: string, path: string) => void) | null = null;
  down = false;

  constructor(
    readonly opts: ResolvedOptions,
    readonly dirs: ImageDirs,
  ) {
    this.script = new Script(opts.script);
    this.vram = new VramModel(opts.vramTotalGb, opts.vramOtherGb, opts.vramNeeds);
    this.log = new SimServerLog(opts.logUtcOffsetMin);
    this.random = prng(opts.duration.seed);
    this.historyRandom = prng(opts.duration.seed ^ HISTORY_STREAM);
  }

  private catalog: Map<string, NodeClass> | null = null;

  /** The installed classes, built once (read-only: LoadImage's file list is read live). */
  classes(): Map<string, NodeClass> {
    this.catalog ??= buildCatalog(this.opts.nodeClasses, this.opts.models, () => listInputFiles(this.dirs));
    return this.catalog;
  }

  queueInfo(): { exec_info: { queue_remaining: number } } {
    return { exec_info: { queue_remaining: this.queue.remaining } };
  }

  private broadcastStatus(): void {
    this.hub.send({ type: 'status', data: { status: this.queueInfo() } }, null);
  }

  private count(id: string): Counts {
    let c = this.counts.get(id);
    if (!c) {
      c = { received: 0, executed: 0, interrupted: 0, failed: 0 };
      this.counts.set(id, c);
    }
    return c;
  }

  /** POST /prompt after the body parsed as JSON (server.py `post_prompt`). */
  postPrompt(body: unknown): PromptAnswer {
    const obj =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    // The counter is consumed by every JSON body, even ones rejected below (README behaviour 6).
    let number: number;
    if (obj && 'number' in obj) {
      number = Number(obj['number']);
    } else {
      number = obj?.['front'] ? -this.counter : this.counter;
      this.counter++;
    }
    if (!obj || !('prompt' in obj)) {
      return {
        kind: 'json',
        status: 400,
        body: {
          error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
          node_errors: {},
        },
      };
    }
    const graph = obj['prompt'];
    if (typeof graph !== 'object' || graph === null || Array.isArray(graph)) return { kind: '500' };
    const behaviour = this.script.next();
    if (behaviour.kind === '500') return { kind: '500' };

    let promptId: string;
    const given = obj['prompt_id'];
    if (this.opts.protocol === 'new') {
      if (given === undefined || given === null) promptId = randomUUID();
      else if (typeof given === 'string' && UUID_RE.test(given)) promptId = given;
      else
        return {
          kind: 'json',
          status: 400,
          body: {
            error: {
              type: 'invalid_prompt_id',
              message: 'prompt_id must be a valid UUID',
              details:
                'prompt_id must be a UUID string in canonical lowercase hyphenated form; omit it to let the server generate one',
              extra_info: {},
            },
            node_errors: {},
          },
        };
    } else {
      // 0.3.64: `str(json_data.get("prompt_id", uuid4()))` — anything goes (prompt_id_not_uuid.json).
      promptId = 'prompt_id' in obj ? pyString(given) : randomUUID();
    }

    const classes = this.classes();
    const partial = Array.isArray(obj['partial_execution_targets'])
      ? (obj['partial_execution_targets'] as unknown[]).map(String)
      : null;
    const result =
      behaviour.kind === 'invalid'
        ? scriptedInvalid(graph as Graph, classes)
        : validatePrompt(graph as Graph, { protocol: this.opts.protocol, classes, partialTargets: partial });
    if (!result.ok) return { kind: 'json', status: 400, body: { error: result.error, node_errors: result.nodeErrors } };

    const extra: Record<string, unknown> =
      typeof obj['extra_data'] === 'object' && obj['extra_data'] !== null
        ? { ...(obj['extra_data'] as Record<string, unknown>) }
        : {};
    if ('client_id' in obj) extra['client_id'] = obj['client_id'];
    if (this.opts.protocol === 'new') extra['create_time'] = Date.now();

    if (behaviour.kind === 'busy') {
      // N prompts of another client were posted just before this one: they take the numbers ahead.
      for (let i = 0; i < behaviour.n; i++) {
        const foreign: QueueItem = [
          number + i,
          randomUUID(),
          structuredClone(graph as Graph),
          { client_id: `sim-foreign-${this.opts.name}` },
          [...result.outputs],
        ];
        this.behaviours.set(foreign, { kind: 'ok' });
        this.foreign.add(foreign);
        this.count(foreign[1]).received++;
        this.queue.put(foreign);
        this.broadcastStatus();
      }
      number += behaviour.n;
      if (!('number' in obj)) this.counter += behaviour.n;
    }
    const item: QueueItem = [number, promptId, graph as Graph, extra, result.outputs];
    this.behaviours.set(item, behaviour);
    this.count(promptId).received++;
    this.log.info('got prompt'); // server.py post_prompt
    this.queue.put(item);
    this.broadcastStatus();
    this.kick();
    return {
      kind: 'json',
      status: 200,
      body: { prompt_id: promptId, number, node_errors: result.nodeErrors },
      ...(behaviour.kind === 'restart' ? { after: 'restart' as const } : {}),
    };
  }

  /** Foreign (busy N) prompts run uncached so they really occupy the GPU. */
  private foreign = new WeakSet<QueueItem>();

  /** POST /interrupt: targeted only if that id is running; otherwise (no id) global. */
  interrupt(promptId: string | null): void {
    if (promptId !== null && this.queue.running?.[1] !== promptId) return;
    this.interruptFlag = true;
    for (const s of [...this.sleepers]) {
      if (!s.interruptible) continue;
      s.stop();
      this.sleepers.delete(s);
      s.resolve();
    }
  }

  /** POST /free requests received, for tests ("the instance is asked to free memory"). */
  freeRequests = 0;

  /** POST /free: flags applied by the worker when idle, or after the running prompt. */
  free(unload: boolean, freeMemory: boolean): void {
    this.freeRequests++;
    this.pendingFree.unload ||= unload || freeMemory;
    this.pendingFree.free ||= freeMemory;
    if (!this.working) this.applyFree();
  }

  private applyFree(): void {
    if (this.pendingFree.unload) this.vram.unload(true);
    if (this.pendingFree.free) this.cache.clear();
    this.pendingFree = { unload: false, free: false };
  }

  deletePending(ids: string[]): void {
    for (const id of ids) if (this.queue.deletePending(id)) this.broadcastStatus();
  }

  clearPending(): void {
    this.queue.clearPending();
    this.broadcastStatus();
  }

  /** Wakes the worker thread (ComfyUI's queue `get()` returns on the next loop turn). */
  kick(): void {
    if (this.working || this.down) return;
    setImmediate(() => this.work());
  }

  private work(): void {
    if (this.working || this.down) return;
    const item = this.queue.take();
    if (!item) return;
    this.working = true;
    this.broadcastStatus();
    this.interruptFlag = false; // reset at every prompt start: an idle interrupt does not hit the next one
    const behaviour = this.behaviours.get(item) ?? { kind: 'ok' };
    const gen = this.gen;
    const host = this.execHost(this.foreign.has(item), gen);
    executeItem(host, item, behaviour).then(
      (outcome) => {
        if (gen !== this.gen) return;
        const c = this.count(item[1]);
        if (outcome === 'success') c.executed++;
        else if (outcome === 'interrupted') c.interrupted++;
        else c.failed++;
        this.working = false;
        this.applyFree();
        this.kick();
      },
      (e: unknown) => {
        if (!(e instanceof Aborted)) throw e;
        if (gen === this.gen) this.working = false;
      },
    );
  }

  private execHost(uncached: boolean, gen: number): ExecHost {
    const d = this.opts.duration;
    return {
      hub: this.hub,
      queue: this.queue,
      classes: this.classes(),
      dirs: this.dirs,
      vram: this.vram,
      cache: uncached ? new Map() : this.cache,
      run: this.run,
      log: this.log,
      sleep: async (ms, interruptible) => {
        if (gen !== this.gen) throw new Aborted();
        await this.sleep(ms, interruptible);
        if (gen !== this.gen) throw new Aborted();
      },
      interrupted: () => this.interruptFlag,
      nodeMs: (classType, nodes, slow) => {
        const random = d.randomMs ? d.randomMs[0] + this.random() * (d.randomMs[1] - d.randomMs[0]) : 0;
        const ms = (d.fixedMs + random) / Math.max(1, nodes) + (d.perClassMs[classType] ?? 0);
        return slow ? ms * 10 : ms;
      },
      modelLoadMs: () => d.modelLoadMs,
      historyDelayMs: () => {
        const [min, max] = this.opts.historyDelayMs;
        return min + this.historyRandom() * (max - min);
      },
      runAfter: async (ms, promptId, work) => {
        if (gen !== this.gen) throw new Aborted();
        await this.runAfter(ms, promptId, work);
        if (gen !== this.gen) throw new Aborted();
      },
      historyWritten: (promptId) => this.onHistoryWritten?.(promptId),
      queueInfo: () => this.queueInfo(),
      crash: () => this.onCrashWord(),
    };
  }

  sleep(ms: number, interruptible: boolean): Promise<void> {
    if (interruptible && this.interruptFlag) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const s: Sleeper = { resolve, reject, interruptible, stop: () => clearTimeout(timer) };
      if (Number.isFinite(ms))
        timer = setTimeout(
          () => {
            this.sleepers.delete(s);
            resolve();
          },
          Math.max(0, ms),
        );
      this.sleepers.add(s);
    });
  }

  /**
   * Waits `ms` to a fraction of a millisecond (Node's timers tick in whole ms; the history delay
   * is well under one). All but the last few ms go to a timer, the rest to event-loop turns, so HTTP
   * requests arriving meanwhile are answered — as the real server's event loop answers them while
   * its worker thread finishes. Not interruptible; a crash rejects it with Aborted.
   */
  /**
   * Runs `work` `ms` from now, as the real server's worker thread would, in parallel with the event
   * loop. Here there is one thread, which may be busy answering requests when the time comes, so
   * every request first runs the work that is due (`settleDue`): a request handled after the due
   * time sees it done, whatever the load. Resolves once `work` ran; a crash before drops it (Aborted).
   */
  /** The clock of the worker's due work (a test sets its own; performance time, ms). */
  now: () => number = () => performance.now();

  runAfter(ms: number, promptId: string, work: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      let ran = false;
      const item: DueWork = {
        due: this.now() + ms,
        promptId,
        run: () => {
          ran = true;
          work();
          resolve();
        },
      };
      this.dueWork.add(item);
      this.waitPrecisely(ms).then(
        () => {
          if (this.dueWork.delete(item)) item.run();
        },
        (e: unknown) => {
          this.dueWork.delete(item);
          if (!ran) reject(e);
        },
      );
    });
  }

  /** Runs the worker's due work before a request for `path` reads the state (see `runAfter`). */
  settleDue(path: string): void {
    const now = this.now();
    for (const item of [...this.dueWork]) {
      if (item.due > now) continue;
      this.dueWork.delete(item);
      item.run();
    }
    for (const item of this.dueWork) this.onRequestInWindow?.(item.promptId, path);
  }

  waitPrecisely(ms: number): Promise<void> {
    const until = this.now() + ms;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let turn: NodeJS.Immediate | undefined;
      const s: Sleeper = {
        resolve,
        reject,
        interruptible: false,
        stop: () => {
          clearTimeout(timer);
          clearImmediate(turn);
        },
      };
      const step = (): void => {
        const left = until - this.now();
        if (left <= 0) {
          this.sleepers.delete(s);
          resolve();
          return;
        }
        // A timer may fire a millisecond or more late, so it stops 2 ms short and turns finish.
        if (left > 3) timer = setTimeout(step, left - 2);
        else turn = setImmediate(step);
      };
      this.sleepers.add(s);
      step();
    });
  }

  /** The process dies: the running prompt stops where it is and all volatile state is lost. */
  wipe(): void {
    for (const s of this.sleepers) {
      s.stop();
      s.reject(new Aborted());
    }
    this.sleepers.clear();
    this.dueWork.clear();
    this.queue = new PromptQueue();
    this.counter = 0;
    this.cache = new Map();
    this.vram.unload(true);
    this.run = { clientId: null, lastNodeId: null, promptId: null };
    this.hub.reset();
    this.log = new SimServerLog(this.opts.logUtcOffsetMin);
    this.interruptFlag = false;
    this.pendingFree = { unload: false, free: false };
    this.gen++;
    this.working = false;
  }
}

/** Python's `str()` for a JSON value (0.3.64 stores whatever prompt_id it gets as a string). */
function pyString(v: unknown): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** The 'invalid' word: a 400 that looks like a missing model / bad combo on the first combo input. */
function scriptedInvalid(
  graph: Graph,
  classes: Map<string, NodeClass>,
): { ok: false; error: ErrorBody; nodeErrors: Record<string, NodeError> } {
  const outputs = Object.keys(graph).filter((id) => classes.get(String(graph[id]?.class_type))?.info.output_node);
  for (const [id, node] of Object.entries(graph)) {
    const def = classes.get(String(node.class_type));
    const combo = def && Object.entries(def.info.input.required).find(([, spec]) => Array.isArray(spec[0]));
    if (!def || !combo) continue;
    const [name, spec] = combo;
    const value = 'scripted_invalid_value';
    const options = spec[0] as string[];
    const long = options.length > 20;
    const details = `${name}: '${value}' not in ${long ? `(list of length ${options.length})` : `[${options.map((o) => `'${o}'`).join(', ')}]`}`;
    return {
      ok: false,
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: outputs.includes(id) ? `Value not in list: ${details}` : '',
        extra_info: {},
      },
      nodeErrors: {
        [id]: {
          errors: [
            {
              type: 'value_not_in_list',
              message: 'Value not in list',
              details,
              extra_info: { input_name: name, input_config: long ? null : inputConfig(spec), received_value: value },
            },
          ],
          dependent_outputs: outputs,
          class_type: def.info.name,
        },
      },
    };
  }
  const out = outputs[0] ?? Object.keys(graph)[0] ?? '1';
  return {
    ok: false,
    error: {
      type: 'prompt_outputs_failed_validation',
      message: 'Prompt outputs failed validation',
      details: 'Custom validation failed for node: scripted invalid',
      extra_info: {},
    },
    nodeErrors: {
      [out]: {
        errors: [
          {
            type: 'custom_validation_failed',
            message: 'Custom validation failed for node',
            details: 'scripted invalid',
            extra_info: {},
          },
        ],
        dependent_outputs: [out],
        class_type: String(graph[out]?.class_type),
      },
    },
  };
}
