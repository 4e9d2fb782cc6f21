/**
 * The two stores side by side in one run: SQLite (the data folder's file, synchronous=FULL) and
 * PostgreSQL (a throwaway server on loopback, fsync and synchronous_commit on, as a studio's
 * server would run). For each store, in this order: the baseline — one bare commit through the
 * store's SqlDb (SQLite's fsync'd commit, PostgreSQL's round-trip commit) — then full job
 * lifecycles per second (`throughput`'s workload), dispatch reaction p50/p99 with a queue
 * (`dispatch`'s judged run: 100 ms prompts, prefetch off), and a big import (preview + commit).
 * Each figure is printed for both stores with the PostgreSQL ÷ SQLite ratio, and the lifecycle
 * time per job in bare commits of its own store.
 *
 *   npm run bench -- stores                       both stores, full size
 *   npm run bench -- stores --store postgres      one store
 *   npm run bench -- stores --quick               smaller workloads
 */
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { bareCommit, bigImport, lifecycles, reaction } from './lib/store-runs.js';
import { round } from './lib/stats.js';
import { info, numberFlags, type Benchmark, type Figure } from './lib/types.js';

type Kind = 'sqlite' | 'postgres';
const KINDS: readonly Kind[] = ['sqlite', 'postgres'];
const LABEL: Record<Kind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** `--store sqlite,postgres` (the default: both). */
export function parseStores(given: string | undefined): Kind[] {
  if (given === undefined || given === 'true') return [...KINDS];
  const names = given.split(',').map((s) => s.trim());
  const bad = names.filter((n) => !(KINDS as readonly string[]).includes(n));
  if (bad.length || names.length === 0)
    throw new Error(`--store ${given}: give sqlite, postgres or both (sqlite,postgres)`);
  return KINDS.filter((k) => names.includes(k));
}

interface StoreFigures {
  commit: { p50: number; p99: number };
  rate: number;
  completed: number;
  seconds: number;
  writesPerCommit: number | null;
  reaction: { p50: number; p99: number; n: number; busyShare: number };
  importS: number;
  previewS: number;
  commitS: number;
}

export const storesBench: Benchmark = {
  name: 'stores',
  description: 'SQLite and PostgreSQL side by side: lifecycles/s, dispatch reaction, 100k import',
  async run(args) {
    const { flags, log } = args;
    const kinds = parseStores(flags.store);
    const n = numberFlags(args, {
      commits: [500, 200],
      jobs: [3000, 500],
      queued: [20_000, 5_000],
      seconds: [15, 6],
      'prompt-ms': 100,
      rows: [100_000, 20_000],
    });
    let cluster: PostgresCluster | null = null;
    let dbs = 0;
    const storeUrl = async (kind: Kind): Promise<string | undefined> => {
      if (kind === 'sqlite') return undefined;
      // fsync, synchronous_commit and full_page_writes on: PostgreSQL's defaults, as a studio runs it.
      cluster ??= await startPostgresCluster({ durable: true });
      return cluster.createDatabase(`bench_${++dbs}`);
    };
    const by: Partial<Record<Kind, StoreFigures>> = {};
    try {
      for (const kind of kinds) {
        const commit = bareCommit(await storeUrl(kind), n.commits);
        log(`${LABEL[kind]}: bare commit p50 ${commit.p50} ms`);
        const life = await lifecycles(await storeUrl(kind), n.jobs, log);
        log(`${LABEL[kind]}: ${life.completed} lifecycles in ${round(life.seconds)} s`);
        const r = await reaction(await storeUrl(kind), {
          queued: n.queued,
          seconds: n.seconds,
          promptMs: n['prompt-ms'],
        });
        log(`${LABEL[kind]}: reaction p50 / p99 ${r.gaps.p50} / ${r.gaps.p99} ms`);
        const imp = await bigImport(await storeUrl(kind), n.rows);
        log(`${LABEL[kind]}: import ${n.rows} rows ${round((imp.previewMs + imp.commitMs) / 1000)} s`);
        by[kind] = {
          commit: { p50: commit.p50, p99: commit.p99 },
          rate: life.rate,
          completed: life.completed,
          seconds: life.seconds,
          writesPerCommit: life.batch ? life.batch.writes / Math.max(1, life.batch.commits) : null,
          reaction: { p50: r.gaps.p50, p99: r.gaps.p99, n: r.gaps.n, busyShare: r.busyShare },
          importS: (imp.previewMs + imp.commitMs) / 1000,
          previewS: imp.previewMs / 1000,
          commitS: imp.commitMs / 1000,
        };
      }
    } finally {
      (cluster as PostgresCluster | null)?.close();
    }
    return { figures: sideBySide(kinds, by, n), details: { counts: n, stores: by } };
  },
};

/** One row per figure: each store's value, and PostgreSQL ÷ SQLite when both ran. */
function sideBySide(
  kinds: Kind[],
  by: Partial<Record<Kind, StoreFigures>>,
  n: { jobs: number; queued: number; rows: number; 'prompt-ms': number },
): Figure[] {
  const head = kinds.map((k) => LABEL[k]).join(' · ');
  const row = (what: string, val: (f: StoreFigures) => number, unit: string, digits = 2): Figure => {
    const vals = kinds.map((k) => val(by[k] as StoreFigures));
    const ratio =
      by.sqlite && by.postgres ? ` (PostgreSQL ÷ SQLite ${round(val(by.postgres) / val(by.sqlite), 2)}×)` : '';
    return info(
      `${what}: ${head}`,
      `${vals.map((v) => round(v, digits)).join(' · ')} ${unit}${ratio}`,
      vals[vals.length - 1],
    );
  };
  return [
    row('baseline: bare commit p50 (SQLite fsync, PostgreSQL round trip, fsync on)', (f) => f.commit.p50, 'ms', 3),
    row('  bare commit p99', (f) => f.commit.p99, 'ms', 3),
    row(`job lifecycles per second (${n.jobs} zero-work jobs, 16 GPUs)`, (f) => f.rate, '/s', 0),
    row('  wall time per lifecycle, in bare commits of its store', (f) => 1000 / f.rate / f.commit.p50, '×', 1),
    row('  writes per commit (batched per tick)', (f) => f.writesPerCommit ?? Number.NaN, '', 1),
    row(
      `dispatch reaction p50 (${n.queued / 1000}k queued, ${n['prompt-ms']} ms prompts, prefetch off)`,
      (f) => f.reaction.p50,
      'ms',
    ),
    row('  dispatch reaction p99', (f) => f.reaction.p99, 'ms'),
    row('  GPU busy share', (f) => f.reaction.busyShare * 100, '%', 0),
    row(`import ${n.rows / 1000}k rows (preview + commit)`, (f) => f.importS, 's'),
    row('  of which preview', (f) => f.previewS, 's'),
    row('  of which commit', (f) => f.commitS, 's'),
  ];
}
