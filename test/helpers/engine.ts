/**
 * Builds a real engine on a temp data folder — its store the SQLite file there, or a fresh
 * PostgreSQL database (`store`: test-store.ts) — with a manual clock and seeded randomness.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { ManualClock, seededRandom } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import type { EngineKind } from '../../electron/engine/lock/lock-record.js';
import { makeTempDir } from './temp-dir.js';
import { defaultStoreKind, openTestStore, type StoreKind, type TestStore } from './test-store.js';

export const REPO = new URL('../../', import.meta.url).pathname;
export const RESOURCES = new URL('../../resources/', import.meta.url).pathname;

export interface TestEngine {
  engine: Engine;
  clock: ManualClock;
  dir: string;
  /** The store the engine uses (its `databaseUrl` is undefined on SQLite). */
  store: TestStore;
  close: () => Promise<void>;
}

/** `kind`: the engine takes the data folder's farm as that host does (and opens its control listener). */
export interface MakeEngineOptions {
  templates?: boolean;
  kind?: EngineKind;
  /** The engine's store (default `sqlite`, or SHOTFARM_TEST_STORE's kind). */
  store?: StoreKind;
}

export async function makeEngine(opts: MakeEngineOptions = {}): Promise<TestEngine> {
  const tmp = makeTempDir();
  const clock = new ManualClock();
  const store = await openTestStore(opts.store ?? defaultStoreKind());
  const engine = new Engine({
    dataDir: tmp.path,
    databaseUrl: store.databaseUrl,
    clock,
    random: seededRandom(42),
    ...(opts.kind ? { kind: opts.kind } : {}),
  });
  if (opts.templates !== false) {
    for (const f of ['keyframe-img2img.json', 'motion-i2v.json']) {
      await engine.call('templates.add', { content: readFileSync(`${RESOURCES}templates/${f}`, 'utf8'), fileName: f });
    }
  }
  return {
    engine,
    clock,
    dir: tmp.path,
    store,
    close: async () => {
      await engine.close();
      tmp.cleanup();
    },
  };
}

/** An engine for one test, closed (and its folder removed) when the test ends. */
export async function engineFor(
  ctx: TestContext,
  opts: { templates?: boolean; store?: StoreKind } = {},
): Promise<TestEngine> {
  const t = await makeEngine(opts);
  ctx.after(t.close);
  return t;
}

/** Imports shot-list text through the contract (preview + commit) and returns both answers. */
export async function importText(engine: Engine, fileName: string, content: string, baseDir = `${RESOURCES}samples`) {
  const preview = await engine.call('import.preview', { fileName, content, baseDir });
  const result = await engine.call('import.commit', { previewId: preview.previewId });
  return { preview, result };
}

/** Counts rows of a table — for "the store is unchanged" assertions. */
export function tableCounts(engine: Engine): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of [
    'projects',
    'episodes',
    'shots',
    'templates',
    'jobs',
    'job_events',
    'attempts',
    'assets',
    'instances',
  ]) {
    out[t] = (engine.db.one(`SELECT COUNT(*) AS n FROM ${t}`) as { n: number }).n;
  }
  return out;
}

/** A digest of every row of the jobs table: equal before and after means byte-for-byte unchanged. */
export function jobsDigest(engine: Engine): string {
  const rows = engine.db.all('SELECT * FROM jobs ORDER BY id');
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}
