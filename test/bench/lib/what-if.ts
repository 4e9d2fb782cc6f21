/**
 * Bench-side "what if" shims: they apply a fix suggested for the engine WITHOUT editing it, by
 * rewriting SQL text as the engine prepares it, so a report can show the figure before and after.
 * Every use is labelled in the output; the default figures are always the unpatched engine's.
 */
import type { Db } from '../../../electron/engine/store/database.js';

/** SQL text the engine prepares → the text to prepare instead. */
export const SQL_FIXES: Record<string, { from: string; to: string; why: string }> = {
  rowid: {
    // job-filter.ts DISPATCH_ORDER (job-store.ts SQL_CANDIDATES, the queue sort): `id` is not in jobs_runnable, so
    // SQLite sorts every queued row (a whole import shares one enqueued_at) before LIMIT applies.
    from: 'enqueued_at ASC, id ASC',
    to: 'enqueued_at ASC, rowid ASC',
    why: 'candidate query ordered by rowid (covered by jobs_runnable) instead of id',
  },
};

/** Non-SQL what-ifs: `sync-normal` = PRAGMA synchronous=NORMAL (WAL: no fsync per commit; crash-safe, not power-loss-safe). */
export const OTHER_FIXES = ['sync-normal'];

export function applySqlFixes(db: Db, names: string[]): void {
  if (names.includes('sync-normal')) db.sqlite?.pragma('synchronous = NORMAL');
  const fixes = names
    .filter((n) => !OTHER_FIXES.includes(n))
    .map((n) => {
      const f = SQL_FIXES[n];
      if (!f) throw new Error(`unknown what-if fix ${n} (known: ${Object.keys(SQL_FIXES).join(', ')})`);
      return f;
    });
  if (fixes.length === 0) return;
  const fixed = (sql: string): string => {
    let s = sql;
    for (const f of fixes) s = s.split(f.from).join(f.to);
    return s;
  };
  // Every statement goes through the adapter's four calls: each is given the rewritten SQL.
  const target = db as { -readonly [K in 'one' | 'all' | 'each' | 'run']: Db[K] };
  for (const k of ['one', 'all', 'each', 'run'] as const) {
    const call = db[k].bind(db) as (sql: string, ...params: unknown[]) => never;
    target[k] = ((sql: string, ...params: unknown[]) => call(fixed(sql), ...params)) as never;
  }
}
