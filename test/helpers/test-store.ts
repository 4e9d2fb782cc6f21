/**
 * The store a test's engine uses, by kind: `sqlite` (the data folder's file, as a farm has by
 * default) or `postgres` (a fresh database on this test process's throwaway PostgreSQL server,
 * started on first use and shared by the process's tests). A test written over `STORE_KINDS`, or
 * given a kind, runs the same cases on both stores: `openTestStore(kind)` gives what to pass to
 * the engine (`databaseUrl`, undefined for SQLite).
 */
import { after } from 'node:test';
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster.js';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

export interface TestStore {
  kind: StoreKind;
  /** The engine's `databaseUrl`: undefined on SQLite (the data folder's file). */
  databaseUrl: string | undefined;
}

/**
 * The store a test uses when it does not name one: SQLite, or the kind in SHOTFARM_TEST_STORE
 * (`SHOTFARM_TEST_STORE=postgres node test/run-tests.mjs integration/scheduler` runs those farms on
 * PostgreSQL).
 */
export function defaultStoreKind(): StoreKind {
  const v = process.env.SHOTFARM_TEST_STORE;
  if (v === undefined || v === '' || v === 'sqlite') return 'sqlite';
  if (v === 'postgres') return 'postgres';
  throw new Error(`SHOTFARM_TEST_STORE=${v}: give sqlite or postgres`);
}

/**
 * The kinds the conformance cases run on: both stores, or only SHOTFARM_TEST_STORE's when it is
 * set (to run one store's half of the suite).
 */
export function storeKindsToRun(): readonly StoreKind[] {
  return process.env.SHOTFARM_TEST_STORE ? [defaultStoreKind()] : STORE_KINDS;
}

/**
 * The conformance suite's one definition: `define` registers a file's cases for one store kind and
 * is called once per kind of `storeKindsToRun()`, so the same cases run on SQLite and on
 * PostgreSQL (name them with the kind, e.g. `… on ${kind}`, so a failure says which store).
 * The PostgreSQL server is stopped after the file's cases.
 */
export function forEachStore(define: (kind: StoreKind) => void): void {
  for (const kind of storeKindsToRun()) define(kind);
  after(closeTestPostgres);
}

/** The CLI's store option for a test store: `--database URL` on PostgreSQL, nothing on SQLite. */
export function storeArgs(store: TestStore): string[] {
  return store.databaseUrl === undefined ? [] : ['--database', store.databaseUrl];
}

let cluster: Promise<PostgresCluster> | null = null;
let databases = 0;

/** This process's PostgreSQL server (started once; stopped when the process exits). */
export function testPostgres(): Promise<PostgresCluster> {
  cluster ??= startPostgresCluster();
  return cluster;
}

/** Stops this process's PostgreSQL server if a test started it (it also stops when the process exits). */
export async function closeTestPostgres(): Promise<void> {
  if (cluster === null) return;
  const started = cluster;
  cluster = null;
  (await started).close();
}

/** A store of `kind` for one engine: on PostgreSQL an empty database of its own. */
export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === 'sqlite') return { kind, databaseUrl: undefined };
  const pg = await testPostgres();
  return { kind, databaseUrl: pg.createDatabase(`farm_${process.pid}_${++databases}`) };
}
