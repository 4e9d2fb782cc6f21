/**
 * A real engine on a temp SQLite file, with real ComfyUI simulator instances on loopback and the
 * scheduler running with short timings. Waits are event-driven with a deadline (no sleeps).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestContext } from 'node:test';
import { systemClock, seededRandom, type Timers } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import type { OutputFs } from '../../electron/engine/files/output-file.js';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import type { JobState } from '../../shared/job-states.js';
import type { JobView } from '../../shared/domain.js';
import { startSimInstance, type SimInstance, type SimInstanceOptions } from '../simulator/index.js';
import type { SimInstanceImpl } from '../simulator/instance.js';
import { FAST } from './fast-timings.js';
import { makeTempDir } from './temp-dir.js';
import { defaultStoreKind, openTestStore, type StoreKind, type TestStore } from './test-store.js';
import { waitUntil } from './wait.js';

export { FAST };

export const FIXTURE_TEMPLATES = new URL('../fixtures/templates/', import.meta.url).pathname;

export interface Farm {
  engine: Engine;
  /** The store the engine uses (its `databaseUrl` is undefined on SQLite). */
  store: TestStore;
  sims: SimInstance[];
  dir: string;
  /** Registers instances by name (sim-0, sim-1…) with the given tags. */
  close(): Promise<void>;
  job(id: string): Promise<JobView>;
  waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  waitForStates(ids: string[], states: JobState[], timeoutMs?: number): Promise<JobView[]>;
  importJobs(shots: ShotSpec[], project?: string, episode?: string): Promise<string[]>;
  /** Restarts the engine on the same data folder (a new process would do the same). */
  restartEngine(over?: Partial<SchedulerConfig>): Promise<Engine>;
  /** Starts the scheduler of a farm made with `start: false`, with the farm's timings. */
  startScheduler(): void;
  /** Every line the engine logged so far (its `log` option). */
  logs(): readonly string[];
}

export interface ShotSpec {
  id: string;
  template?: string;
  stage?: string;
  priority?: 'rush' | 'high' | 'normal' | 'low';
  parameters?: Record<string, string | number>;
}

export interface FarmOptions {
  instances: (SimInstanceOptions & { tags?: string[]; concurrency?: number })[];
  config?: Partial<SchedulerConfig>;
  /** Template files: names in test/fixtures/templates/, or absolute paths. */
  templates?: string[];
  /** Start the scheduler at once (default true). */
  start?: boolean;
  /** The engine's timers (default the system's), e.g. to see which intervals it arms. */
  timers?: Timers;
  /** The output files' calls (default the real disk), e.g. a disk that fills up. */
  outputFs?: OutputFs;
  /** The farm's store (default `sqlite`, the data folder's file): test-store.ts. */
  store?: StoreKind;
}

export async function startFarm(o: FarmOptions): Promise<Farm> {
  const tmp = makeTempDir('shotfarm-farm-');
  const sims = await Promise.all(
    o.instances.map((i, n) => startSimInstance({ name: `sim-${n}`, duration: { fixedMs: 20 }, ...i })),
  );
  const logs: string[] = [];
  const store = await openTestStore(o.store ?? defaultStoreKind());
  const make = () =>
    new Engine({
      dataDir: tmp.path,
      databaseUrl: store.databaseUrl,
      clock: systemClock,
      random: seededRandom(7),
      timers: o.timers,
      outputRoot: join(tmp.path, 'out'),
      log: (m) => logs.push(m),
      ...(o.outputFs ? { outputFs: o.outputFs } : {}),
    });
  let engine = make();
  for (const f of o.templates ?? ['txt2img.json', 'video18.json', 'needs-custom-node.json']) {
    await engine.call('templates.add', { content: readFileSync(resolve(FIXTURE_TEMPLATES, f), 'utf8'), fileName: f });
  }
  for (const [n, i] of o.instances.entries()) {
    await engine.call('instances.add', {
      name: `sim-${n}`,
      url: (sims[n] as SimInstance).url,
      tags: i.tags ?? [],
      maxConcurrency: i.concurrency ?? 1,
    });
  }
  const start = () => void engine.startScheduler({ ...FAST, ...o.config });
  if (o.start !== false) start();

  const farm: Farm = {
    get engine() {
      return engine;
    },
    sims,
    store,
    dir: tmp.path,
    async close() {
      await engine.close().catch(() => undefined);
      await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
      tmp.cleanup();
    },
    job: (id) => engine.call('jobs.get', { id }),
    waitFor: (what, predicate, timeoutMs) =>
      waitOnEngine(engine, what, predicate, timeoutMs, () => `engine log:\n${logs.slice(-20).join('\n')}`),
    async waitForStates(ids, states, timeoutMs) {
      let views: JobView[] = [];
      await farm.waitFor(
        `jobs to reach ${states.join('/')}`,
        async () => {
          views = await Promise.all(ids.map((id) => engine.call('jobs.get', { id })));
          return views.every((v) => states.includes(v.state));
        },
        timeoutMs,
      );
      return views;
    },
    async importJobs(shots, project = 'P', episode = 'E') {
      const list = {
        project,
        episode,
        shots: shots.map((s) => ({
          id: s.id,
          stage: s.stage ?? 'keyframe',
          template: s.template ?? 'txt2img',
          priority: s.priority ?? 'normal',
          parameters: s.parameters ?? {},
        })),
      };
      const preview = await engine.call('import.preview', { fileName: 'list.json', content: JSON.stringify(list) });
      const errors = preview.rows.filter((r) => r.status === 'error');
      if (errors.length) throw new Error(`import errors: ${JSON.stringify(errors.map((e) => e.errors))}`);
      const result = await engine.call('import.commit', { previewId: preview.previewId });
      return preview.rows.map((r) => r.jobId as string).filter((id) => result.jobIds.includes(id));
    },
    startScheduler: start,
    logs: () => logs,
    async restartEngine(over = {}) {
      await engine.close();
      engine = make();
      engine.startScheduler({ ...FAST, ...o.config, ...over });
      return engine;
    },
  };
  return farm;
}

/** A farm for one test, closed when the test ends. */
export async function farmFor(ctx: TestContext, o: FarmOptions): Promise<Farm> {
  const farm = await startFarm(o);
  ctx.after(() => farm.close());
  return farm;
}

/** The farm's running scheduler. */
export type FarmScheduler = NonNullable<Engine['scheduler']>;

/**
 * Pauses the farm (its queued jobs stay queued, for what looks at the queue) and starts its
 * scheduler; with `up`, resolves once every workstation is dispatchable with its node list known.
 */
export async function startPaused(farm: Farm, o: { up?: boolean } = {}): Promise<FarmScheduler> {
  await farm.engine.call('farm.pause', {});
  farm.startScheduler();
  const scheduler = farm.engine.scheduler;
  if (!scheduler) throw new Error('the scheduler did not start');
  if (o.up) {
    await farm.waitFor('every workstation up with its node list', () =>
      scheduler.readiness().every((r) => r.dispatchable && r.nodeListKnown),
    );
  }
  return scheduler;
}

/**
 * Waits until `predicate` holds, re-checking on every job or instance change of the engine and
 * every 25 ms for conditions only a server shows (a simulator's counts); fails after `timeoutMs`.
 */
export async function waitOnEngine(
  engine: Engine,
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  context = () => '',
): Promise<void> {
  await waitUntil(predicate, {
    what,
    timeoutMs,
    pollMs: 25,
    detail: context,
    wake: (recheck) => {
      const offs = [engine.events.on('job.changed', recheck), engine.events.on('instance.changed', recheck)];
      return () => {
        for (const off of offs) off();
      };
    },
  });
}

/** Total executions of a prompt across the farm's simulators ("rendered exactly once"). */
export function executedCount(farm: Farm, promptId: string): number {
  return farm.sims.reduce((n, s) => n + s.counts(promptId).executed, 0);
}

export function receivedCount(farm: Farm, promptId: string): number {
  return farm.sims.reduce((n, s) => n + s.counts(promptId).received, 0);
}

/**
 * Watches a simulated server's own queue (what is sent to the GPU: running + pending) until
 * stopped, and reports the most prompts it ever held at once that had not finished executing. A
 * prompt that has sent its end message (execution_success / _error / _interrupted) is done with
 * the GPU — the server only writes its history after it — so the next one may already be posted
 * then; it is no longer counted.
 */
export function watchServerQueue(sim: SimInstance): { stop: () => Promise<number> } {
  let max = 0;
  let on = true;
  const ended = new Set<string>();
  const hub = (sim as unknown as SimInstanceImpl).core.hub;
  const send = hub.send.bind(hub);
  hub.send = (msg, clientId) => {
    if (msg.type === 'execution_success' || msg.type === 'execution_error' || msg.type === 'execution_interrupted')
      ended.add(String(msg.data['prompt_id'] ?? ''));
    send(msg, clientId);
  };
  const loop = (async () => {
    while (on) {
      const res = await fetch(`${sim.url}/queue`).catch(() => null);
      if (res?.ok) {
        const q = (await res.json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
        const executing = q.queue_running.filter((item) => !ended.has(String(item[1])));
        max = Math.max(max, executing.length + q.queue_pending.length);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    stop: async () => {
      on = false;
      await loop;
      hub.send = send;
      return max;
    },
  };
}
