/**
 * Wake-ups across engines on one PostgreSQL database (#27 item 4): engine A (no scheduler, as a
 * one-shot command) imports one job at a time; engine B runs the farm, its GPU idle and its own
 * passes a minute apart (probe interval 60 s), so only A's notice wakes it. Measured: the time from
 * A's commit (import.commit resolved) to B's dispatch decision for that job, p50/p99 — and, in the
 * same run as baselines, a bare loopback round trip (`SELECT 1` on the `pg` driver) and a bare
 * NOTIFY → LISTEN between two `pg` connections (the floor of the mechanism).
 *
 *   npm run bench -- engines-wake              100 imports
 *   npm run bench -- engines-wake --jobs 30    fewer
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { systemClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import { FAST, FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { startPostgresCluster } from '../helpers/postgres-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { importThrough } from '../helpers/two-engines.js';
import { startSimInstance } from '../simulator/index.js';
import { summary, until } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

/** The acceptance: an import through engine A starts on a GPU of engine B within 50 ms p99. */
const TARGET_P99_MS = 50;

async function roundTrips(url: string, n: number): Promise<{ select: number[]; notify: number[] }> {
  const a = new pg.Client({ connectionString: url });
  const b = new pg.Client({ connectionString: url });
  await a.connect();
  await b.connect();
  try {
    const select: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await a.query('SELECT 1');
      select.push(performance.now() - t0);
    }
    await b.query('LISTEN bench_wake');
    const notify: number[] = [];
    for (let i = 0; i < n; i++) {
      const heard = new Promise<number>((r) => b.once('notification', () => r(performance.now())));
      const t0 = performance.now();
      await a.query("SELECT pg_notify('bench_wake', $1)", [String(i)]);
      notify.push((await heard) - t0);
    }
    return { select, notify };
  } finally {
    await a.end();
    await b.end();
  }
}

async function must(what: string, wait: () => Promise<boolean>): Promise<void> {
  if (!(await wait())) throw new Error(`timed out waiting for ${what}`);
}

export const enginesWakeBench: Benchmark = {
  name: 'engines-wake',
  description: 'PostgreSQL, two engines: commit through A → dispatch decision on B (idle GPU), p50/p99',
  async run(args) {
    const n = numberFlags(args, { jobs: [100, 20], baseline: [200, 50] });
    const cluster = await startPostgresCluster({ durable: true });
    const dirA = makeTempDir('shotfarm-bench-wake-a-');
    const dirB = makeTempDir('shotfarm-bench-wake-b-');
    const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: 20 } });
    const engines: Engine[] = [];
    try {
      const url = cluster.createDatabase('wake');
      const base = await roundTrips(url, n.baseline);
      const b = new Engine({ dataDir: dirB.path, databaseUrl: url, clock: systemClock, log: () => undefined });
      engines.push(b);
      await b.call('templates.add', {
        content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
        fileName: 'txt2img.json',
      });
      await b.call('instances.add', { name: 'sim-0', url: sim.url, tags: [], maxConcurrency: 1 });
      const farm = b.startScheduler({ ...FAST, probeIntervalMs: 60_000 });
      await must('the simulator to be dispatchable', () =>
        until(() => farm.readiness().every((r) => r.dispatchable && r.nodeListKnown), 30_000),
      );
      const a = new Engine({ dataDir: dirA.path, databaseUrl: url, clock: systemClock, log: () => undefined });
      engines.push(a);
      const claimed = new Map<string, number>();
      farm.onDispatch = (jobId) => {
        if (!claimed.has(jobId)) claimed.set(jobId, performance.now());
      };
      // B announces a heard job to its own bus (after the pass its kick queued): when B's clients see it.
      const heardAt = new Map<string, number>();
      b.events.on('job.changed', ({ job }) => {
        if (!heardAt.has(job.id)) heardAt.set(job.id, performance.now());
      });
      const delays: number[] = [];
      const hearing: number[] = [];
      for (let i = 0; i < n.jobs; i++) {
        const [id] = await importThrough(a, [`wake${String(i).padStart(4, '0')}`]);
        const committed = performance.now();
        if (!id) throw new Error('the import made no job');
        await must(`job ${id} to be claimed by engine B`, () => until(() => claimed.has(id), 10_000));
        delays.push((claimed.get(id) as number) - committed);
        const heard = heardAt.get(id);
        if (heard !== undefined) hearing.push(heard - committed);
        // The GPU idle again before the next import: each one measures a wake-up, never a queue.
        await must(`job ${id} to complete`, () =>
          until(async () => (await b.call('jobs.get', { id })).state === 'completed', 10_000),
        );
      }
      const wake = summary(delays);
      const ear = summary(hearing);
      const sel = summary(base.select);
      const not = summary(base.notify);
      args.log(`commit→claim p50 ${wake.p50} ms, p99 ${wake.p99} ms over ${wake.n}`);
      return {
        figures: [
          le('commit (engine A) → dispatch decision (engine B), p99', wake.p99, TARGET_P99_MS, 'ms'),
          info('commit (engine A) → dispatch decision (engine B), p50', `${wake.p50} ms`, wake.p50),
          info("commit (A) → B's clients see the job (job.changed), p50 / p99", `${ear.p50} / ${ear.p99} ms`, ear.p50),
          info('baseline: loopback round trip (SELECT 1), p50 / p99', `${sel.p50} / ${sel.p99} ms`, sel.p50),
          info('baseline: bare NOTIFY → LISTEN, p50 / p99', `${not.p50} / ${not.p99} ms`, not.p50),
          info(
            'NOTIFYs: A sent · B heard',
            `${a.notices?.outbox.sent ?? 0} · ${b.notices?.inbox.counts.heard ?? 0}`,
            a.notices?.outbox.sent ?? 0,
          ),
        ],
        details: { counts: n, wake, heard: ear, baselineSelect: sel, baselineNotify: not, delaysMs: delays },
      };
    } finally {
      for (const e of engines.reverse()) await e.close().catch(() => undefined);
      await sim.close().catch(() => undefined);
      cluster.close();
      dirA.cleanup();
      dirB.cleanup();
    }
  },
};
