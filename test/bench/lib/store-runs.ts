/**
 * The `stores` bench's measurements, each on one store (the data folder's SQLite file, or the
 * PostgreSQL database at `databaseUrl`): a bare commit through the store's own SqlDb (the baseline
 * every other figure is read against), full job lifecycles per second, dispatch reaction with a
 * queue, and a big import (preview + commit). Same workloads as `throughput`, `dispatch` and
 * `import`, so the two stores' figures differ only by the store.
 */
import { join } from 'node:path';
import { systemClock } from '../../../electron/engine/clock.js';
import { openDatabase } from '../../../electron/engine/store/database.js';
import { openPostgresDb } from '../../../electron/engine/store/postgres/postgres-db.js';
import type { SqlDb } from '../../../electron/engine/store/sql-db.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import {
  importThroughContract,
  openBenchEngine,
  shotListJson,
  startAndWaitReady,
  stateCounts,
} from './bench-engine.js';
import { probeEngine } from './engine-probes.js';
import { startRemoteFarm } from './remote-farm.js';
import { reactionGaps } from './sim-events.js';
import { sleep, summary, until } from './stats.js';

const GPUS = 16;
type Summary = ReturnType<typeof summary>;

/**
 * One small INSERT in its own transaction, `n` times, through the SqlDb the engine uses: on SQLite
 * an fsync'd commit (synchronous=FULL), on PostgreSQL a round trip over loopback to a server with
 * fsync on (BEGIN, INSERT, COMMIT through the synchronous bridge). A fresh scratch table.
 */
export function bareCommit(databaseUrl: string | undefined, n: number): Summary {
  const tmp = databaseUrl ? null : makeTempDir('shotfarm-bench-commit-');
  const db: SqlDb = databaseUrl
    ? openPostgresDb(databaseUrl)
    : openDatabase(join((tmp as { path: string }).path, 'commit.sqlite'), systemClock);
  try {
    db.exec('CREATE TABLE bench_commit (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      db.transaction(() => db.run('INSERT INTO bench_commit (id, n) VALUES (?, ?)', `c${i}`, i));
      ms.push(performance.now() - t0);
    }
    return summary(ms);
  } finally {
    db.close();
    tmp?.cleanup();
  }
}

export interface LifecycleRun {
  completed: number;
  seconds: number;
  rate: number;
  batch: { writes: number; commits: number } | null;
  states: Record<string, number>;
}

/** Zero-work prompts on 16 GPUs: completed jobs per second of wall time (as `throughput`). */
export async function lifecycles(databaseUrl: string | undefined, jobs: number, log: (m: string) => void) {
  const farm = await startRemoteFarm(
    Array.from({ length: GPUS }, (_, i) => ({ name: `z${i}`, duration: { fixedMs: 0 } })),
  );
  const be = await openBenchEngine({ databaseUrl, instances: farm.urls.map((url) => ({ url })) });
  try {
    await startAndWaitReady(be.engine);
    const probe = probeEngine(be.engine);
    await importThroughContract(be.engine, shotListJson(jobs));
    const t0 = performance.now();
    const done = await until(() => probe.completedCount() >= jobs, 180_000, 10);
    const seconds = (performance.now() - t0) / 1000;
    probe.stop();
    const completed = probe.completedCount();
    if (!done) log(`not all completed in time: ${JSON.stringify(stateCounts(be.engine))}`);
    const b = be.engine.scheduler?.batch.stats;
    const run: LifecycleRun = {
      completed,
      seconds,
      rate: completed / seconds,
      batch: b ? { writes: b.writes, commits: b.commits } : null,
      states: stateCounts(be.engine),
    };
    return run;
  } finally {
    await be.close();
    await farm.close();
  }
}

/**
 * Dispatch reaction with `queued` jobs waiting, prefetch off, 100 ms prompts on 16 GPUs (as
 * `dispatch`'s judged run): the simulator's execution end → the next POST at that instance. The
 * queue is imported through the contract in chunks into this store before the scheduler starts.
 */
export async function reaction(
  databaseUrl: string | undefined,
  o: { queued: number; seconds: number; promptMs: number },
): Promise<{ gaps: Summary; busyShare: number }> {
  const farm = await startRemoteFarm(
    Array.from({ length: GPUS }, (_, i) => ({ name: `g${i}`, duration: { fixedMs: o.promptMs } })),
  );
  const be = await openBenchEngine({ databaseUrl });
  try {
    const chunk = 5_000;
    for (let from = 0; from < o.queued; from += chunk) {
      const n = Math.min(chunk, o.queued - from);
      const r = await importThroughContract(be.engine, shotListJson(n, { prefix: `q${from}-` }));
      if (r.ids.length !== n) throw new Error(`queue import: ${r.ids.length} of ${n} rows stored (${r.errors} errors)`);
    }
    for (const [n, url] of farm.urls.entries())
      await be.engine.call('instances.add', { name: `gpu-${n}`, url, tags: [], maxConcurrency: 1 });
    await startAndWaitReady(be.engine, { prefetch: false });
    await farm.events(true);
    await sleep(2_000); // warm-up: every GPU has had its first prompt
    const from = performance.timeOrigin + performance.now();
    await sleep(o.seconds * 1000);
    const events = (await farm.events(true)).filter((e) => e.t >= from);
    const executions = events.filter((e) => e.k === 'E').length;
    return {
      gaps: summary(reactionGaps(events)),
      busyShare: (executions * o.promptMs) / (GPUS * o.seconds * 1000),
    };
  } finally {
    await be.close();
    await farm.close();
  }
}

/** A `rows`-row shot list through the contract with 16 busy GPUs (as `import`). */
export async function bigImport(
  databaseUrl: string | undefined,
  rows: number,
): Promise<{ previewMs: number; commitMs: number }> {
  const farm = await startRemoteFarm(
    Array.from({ length: GPUS }, (_, i) => ({ name: `g${i}`, duration: { fixedMs: 60_000 } })),
  );
  const be = await openBenchEngine({ databaseUrl, instances: farm.urls.map((url) => ({ url })) });
  try {
    await startAndWaitReady(be.engine);
    const r = await importThroughContract(be.engine, shotListJson(rows), 'big.json');
    if (r.ids.length !== rows) throw new Error(`imported ${r.ids.length} of ${rows} (${r.errors} errors)`);
    return { previewMs: r.previewMs, commitMs: r.commitMs };
  } finally {
    await be.close();
    await farm.close();
  }
}
