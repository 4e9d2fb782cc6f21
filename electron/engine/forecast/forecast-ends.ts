/**
 * Each waiting job's forecast end, as the last forecast computed it: the job views (queue rows, the
 * drawer, `jobs list`) read it from here, per database connection, so a view never runs a forecast.
 */
import type { Db } from '../store/database.js';
import type { SimEnd } from './simulate.js';

const perDb = new WeakMap<Db, ReadonlyMap<string, SimEnd>>();

export function setForecastEnds(db: Db, ends: ReadonlyMap<string, SimEnd>): void {
  perDb.set(db, ends);
}

/** The job's forecast end (p50, p90); null when no forecast placed it. */
export function forecastEndOf(db: Db, jobId: string): { p50: number; p90: number } | null {
  const e = perDb.get(db)?.get(jobId);
  return e ? { p50: Math.round(e.p50), p90: Math.round(e.p90) } : null;
}
