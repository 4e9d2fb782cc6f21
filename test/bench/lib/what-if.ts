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
  if (names.includes('sync-normal')) db.pragma('synchronous = NORMAL');
  const fixes = names
    .filter((n) => !OTHER_FIXES.includes(n))
    .map((n) => {
      const f = SQL_FIXES[n];
      if (!f) throw new Error(`unknown what-if fix ${n} (known: ${Object.keys(SQL_FIXES).join(', ')})`);
      return f;
    });
  if (fixes.length === 0) return;
  const prepare = db.prepare.bind(db);
  (db as { prepare: (sql: string) => ReturnType<Db['prepare']> }).prepare = (sql: string) => {
    let s = sql;
    for (const f of fixes) s = s.split(f.from).join(f.to);
    return prepare(s);
  };
}
