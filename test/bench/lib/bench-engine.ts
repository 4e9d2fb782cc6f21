/**
 * A real engine on a temp folder for the benchmarks: the fixture templates, simulator instances
 * registered through the contract, the scheduler started, and a wait until every instance can
 * take work. Shot lists are built here and imported through the contract (preview + commit).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../../electron/engine/clock.js';
import { Engine } from '../../../electron/engine/engine.js';
import type { SchedulerConfig } from '../../../electron/engine/settings/farm-config.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { until } from './stats.js';

export const FIXTURE_TEMPLATES = new URL('../../fixtures/templates/', import.meta.url).pathname;

export interface BenchInstance {
  url: string;
  name?: string;
  tags?: string[];
  concurrency?: number;
}

export interface BenchEngine {
  engine: Engine;
  dir: string;
  logs: string[];
  close(): Promise<void>;
}

export async function openBenchEngine(
  o: { dataDir?: string; databaseUrl?: string; templates?: string[]; instances?: BenchInstance[] } = {},
): Promise<BenchEngine> {
  const tmp = o.dataDir ? null : makeTempDir('shotfarm-bench-');
  const dir = o.dataDir ?? (tmp as { path: string }).path;
  const logs: string[] = [];
  const engine = new Engine({
    dataDir: dir,
    // The PostgreSQL store when given (the `stores` bench); else the data folder's SQLite file.
    databaseUrl: o.databaseUrl,
    random: seededRandom(11),
    outputRoot: join(dir, 'out'),
    log: (m) => {
      if (logs.length < 2000) logs.push(m);
    },
  });
  for (const f of o.templates ?? ['txt2img.json', 'video18.json']) {
    await engine.call('templates.add', { content: readFileSync(join(FIXTURE_TEMPLATES, f), 'utf8'), fileName: f });
  }
  for (const [n, i] of (o.instances ?? []).entries()) {
    await engine.call('instances.add', {
      name: i.name ?? `gpu-${String(n).padStart(2, '0')}`,
      url: i.url,
      tags: i.tags ?? [],
      maxConcurrency: i.concurrency ?? 1,
    });
  }
  return {
    engine,
    dir,
    logs,
    async close() {
      await engine.close().catch(() => undefined);
      tmp?.cleanup();
    },
  };
}

/** Starts the scheduler and waits until every registered instance is dispatchable (probed, node list known). */
export async function startAndWaitReady(
  engine: Engine,
  config: Partial<SchedulerConfig> = {},
  timeoutMs = 20_000,
): Promise<void> {
  const s = engine.startScheduler(config);
  const ok = await until(
    () => {
      const all = s.readiness();
      return all.length > 0 && all.every((i) => i.dispatchable);
    },
    timeoutMs,
    10,
  );
  if (!ok) throw new Error('instances did not become dispatchable in time');
}

export interface ShotSpec {
  template?: string;
  stage?: string;
  priority?: 'rush' | 'high' | 'normal' | 'low';
  parameters?: Record<string, string | number>;
}

/** A JSON shot list of `n` shots; `spec(i)` sets each one (default: txt2img, normal, its own prompt). */
export function shotListJson(
  n: number,
  o: { project?: string; episode?: string; prefix?: string; spec?: (i: number) => ShotSpec } = {},
): string {
  const shots = [];
  for (let i = 0; i < n; i++) {
    const s = o.spec?.(i) ?? {};
    shots.push({
      id: `${o.prefix ?? 'sh'}${String(i).padStart(6, '0')}`,
      stage: s.stage ?? 'keyframe',
      template: s.template ?? 'txt2img',
      priority: s.priority ?? 'normal',
      parameters: s.parameters ?? { prompt: `shot ${i}` },
    });
  }
  return JSON.stringify({ project: o.project ?? 'Bench', episode: o.episode ?? 'ep1', shots });
}

/** CPU time (user + system, ms) this process has used since `from` (process.cpuUsage). */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/**
 * Preview + commit through the contract; returns the new job ids, the two durations (ms) and the
 * CPU time this process spent in each (ms): on a machine busy with other work the wall time
 * stretches with the wait for a core, the CPU time much less.
 */
export async function importThroughContract(
  engine: Engine,
  content: string,
  fileName = 'list.json',
): Promise<{
  ids: string[];
  previewMs: number;
  commitMs: number;
  previewCpuMs: number;
  commitCpuMs: number;
  errors: number;
}> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const preview = await engine.call('import.preview', { fileName, content });
  const t1 = performance.now();
  const previewCpuMs = cpuMsSince(c0);
  const c1 = process.cpuUsage();
  const result = await engine.call('import.commit', { previewId: preview.previewId });
  const t2 = performance.now();
  const commitCpuMs = cpuMsSince(c1);
  return {
    ids: result.jobIds,
    previewMs: t1 - t0,
    commitMs: t2 - t1,
    previewCpuMs,
    commitCpuMs,
    errors: preview.counts.error,
  };
}

/** Jobs by state, straight from the store. */
export function stateCounts(engine: Engine): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of engine.db.all('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state') as {
    state: string;
    n: number;
  }[])
    out[r.state] = r.n;
  return out;
}
