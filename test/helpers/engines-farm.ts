/**
 * Several real Engines in one test process sharing one PostgreSQL farm (issue 27), each with its
 * own data folder, over real simulators on loopback: the farm's templates and workstations are
 * entered through the first engine, whose scheduler runs; `engine()` starts one more.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestContext } from 'node:test';
import { seededRandom, systemClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import type { LeaseManager } from '../../electron/engine/lock/lease-manager.js';
import type { EngineEnv } from '../../electron/engine/engine-env.js';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { startSimInstance, type SimInstance, type SimInstanceOptions } from '../simulator/index.js';
import { FAST, FIXTURE_TEMPLATES, waitOnEngine } from './farm.js';
import { makeTempDir } from './temp-dir.js';
import { addTemplateVariant } from './template-variants.js';
import { openTestStore } from './test-store.js';

/** A short lease, so adoption is seen within a test: 3 s (the setting's least), renewed every second. */
export const LEASE_MS = 3_000;
export const CONFIG: Partial<SchedulerConfig> = { ...FAST, leaseMs: LEASE_MS };

export interface SharedFarm {
  url: string;
  sims: SimInstance[];
  engines: Engine[];
  /** Starts one more engine on the farm (its own data folder), its scheduler running. */
  engine(): Engine;
  logs: string[];
  importJobs(count: number, prefix: string): Promise<string[]>;
}

/**
 * Engines on the farm at `url`, each with a data folder of its own (`env`: the host's environment
 * each gets, or engine N's), logs prefixed `[engine N]`; closed with `closeMore` (the simulators)
 * and their folders removed when the test ends.
 */
export function farmEngines(
  ctx: TestContext,
  url: string,
  env: EngineEnv | ((n: number) => EngineEnv),
  closeMore: () => Promise<unknown>,
): { engines: Engine[]; logs: string[]; make: () => Engine } {
  const logs: string[] = [];
  const engines: Engine[] = [];
  const dirs: { cleanup(): void }[] = [];
  const make = (): Engine => {
    const tmp = makeTempDir('shotfarm-engines-');
    dirs.push(tmp);
    const n = engines.length;
    const e = new Engine({
      dataDir: tmp.path,
      databaseUrl: url,
      clock: systemClock,
      random: seededRandom(n + 1),
      outputRoot: join(tmp.path, 'out'),
      env: typeof env === 'function' ? env(n) : env,
      log: (m) => logs.push(`[engine ${n}] ${m}`),
    });
    engines.push(e);
    return e;
  };
  ctx.after(async () => {
    for (const e of engines) await e.close().catch(() => undefined);
    await closeMore().catch(() => undefined);
    for (const d of dirs) d.cleanup();
  });
  return { engines, logs, make };
}

export async function sharedFarm(
  ctx: TestContext,
  instances: (SimInstanceOptions & { concurrency?: number })[],
  over: Partial<SchedulerConfig> = {},
): Promise<SharedFarm> {
  const store = await openTestStore('postgres');
  const url = store.databaseUrl as string;
  const sims = await Promise.all(
    instances.map((o, n) => startSimInstance({ name: `sim-${n}`, duration: { fixedMs: 20 }, ...o })),
  );
  const { engines, logs, make } = farmEngines(ctx, url, {}, () => Promise.all(sims.map((s) => s.close())));
  // The farm's templates and workstations, entered through one engine (any would do).
  const first = make();
  await first.call('templates.add', {
    content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
    fileName: 'txt2img.json',
  });
  for (const [n, sim] of sims.entries())
    await first.call('instances.add', {
      name: `sim-${n}`,
      url: sim.url,
      tags: [],
      maxConcurrency: instances[n]?.concurrency ?? 1,
    });
  first.startScheduler({ ...CONFIG, ...over });
  return {
    url,
    sims,
    engines,
    logs,
    engine() {
      const e = make();
      e.startScheduler({ ...CONFIG, ...over });
      return e;
    },
    importJobs: (count, prefix) => importKeyframes(first, count, prefix),
  };
}

type Priority = 'rush' | 'high' | 'normal' | 'low';

/** Imports `count` txt2img keyframes of project P through `engine` (ids `prefix000`…): their job ids. */
export function importKeyframes(engine: Engine, count: number, prefix: string, priority: Priority = 'normal') {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
  return importShots(engine, ids, 'txt2img', priority);
}

/** Imports keyframes of project P with these shot ids and template through `engine`: their job ids. */
export async function importShots(
  engine: Engine,
  ids: readonly string[],
  template: string,
  priority: Priority = 'normal',
): Promise<string[]> {
  const list = {
    project: 'P',
    episode: 'E',
    shots: ids.map((id) => ({ id, stage: 'keyframe', template, priority, parameters: {} })),
  };
  const preview = await engine.call('import.preview', { fileName: 'list.json', content: JSON.stringify(list) });
  return (await engine.call('import.commit', { previewId: preview.previewId })).jobIds;
}

/**
 * Two engines, A and B, one 24 GB GPU with two slots each, whose prompts take `durationMs`, and the
 * txt2img variants small8 (8 GB) and big20 (20 GB): two small jobs fill a GPU, and a big one fits
 * only an emptied GPU — starved by its size while small ones refill every slot that frees (SPEC §3).
 * Starvation after 200 ms; no prefetch. Returned with both GPUs full: four small jobs running.
 * They are started one at a time, 0.5 s apart (less for short prompts), so no two end together: a GPU empties
 * only when it is kept free, never because both its prompts happened to end in one moment (then the
 * big job would fit there by chance, and the test would prove nothing about the reservation).
 */
export async function sizeFarm(
  ctx: TestContext,
  durationMs: number,
): Promise<{ farm: SharedFarm; a: Engine; b: Engine }> {
  const gpu = { vramTotalGb: 24, concurrency: 2, duration: { fixedMs: durationMs } };
  const farm = await sharedFarm(ctx, [gpu, gpu], { starvationMs: 200, prefetch: false });
  const [a] = farm.engines as [Engine];
  const b = farm.engine();
  await waitFor(a, farm, 'one workstation each', () => held(a).length === 1 && held(b).length === 1);
  await addTemplateVariant(a, 'txt2img', { name: 'small8', vram_gb: 8 });
  await addTemplateVariant(a, 'txt2img', { name: 'big20', vram_gb: 20 });
  const running = () => a.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state = 'running'")?.n ?? 0;
  for (const [i, id] of ['s1', 's2', 's3', 's4'].entries()) {
    if (i > 0) await delay(Math.min(500, durationMs / 5));
    await importShots(a, [id], 'small8');
    await waitFor(a, farm, `${i + 1} small jobs running`, () => running() === i + 1);
  }
  return { farm, a, b };
}

export function leasesOf(e: Engine): LeaseManager {
  assert.ok(e.leases, 'the engine runs a lease manager on PostgreSQL');
  return e.leases;
}

export function held(e: Engine): string[] {
  return leasesOf(e).holding().sort();
}

export function waitFor(e: Engine, farm: SharedFarm, what: string, p: () => boolean | Promise<boolean>, ms = 20_000) {
  return waitOnEngine(e, what, p, ms, () => `logs:\n${farm.logs.slice(-20).join('\n')}`);
}

export function executed(farm: SharedFarm, id: string): number {
  return farm.sims.reduce((n, s) => n + s.counts(id).executed, 0);
}

export function received(farm: SharedFarm, id: string): number {
  return farm.sims.reduce((n, s) => n + s.counts(id).received, 0);
}
