/**
 * Studio-sized counts in a second: `n` copies of one job row in a given state, written in one SQL
 * statement (new random v4 UUIDs — the contract validates ids, so a copy opens in the drawer and
 * takes part in bulk actions — and takes after `takeFrom` so the (shot, stage, take) key stays unique). Used by
 * the top-bar test and the screenshot tour, which need 123,456 queued without importing them.
 */
import type { Db } from '../../electron/engine/store/database.js';
import type { SqlDb } from '../../electron/engine/store/sql-db.js';

/** A random version-4 UUID in SQLite's own functions. */
const UUID = `lower(printf('%s-%s-4%s-%s%s-%s', hex(randomblob(4)), hex(randomblob(2)), substr(hex(randomblob(2)), 2),
  substr('89ab', 1 + abs(random()) % 4, 1), substr(hex(randomblob(2)), 2), hex(randomblob(6))))`;

export function copyJob(db: Db, id: string, n: number, state: string, takeFrom: number): void {
  const before = db.one<{ r: number | null }>('SELECT MAX(rowid) AS r FROM jobs')?.r ?? 0;
  const cols = db.all<{ name: string }>('PRAGMA table_info(jobs)').map((c) => c.name);
  const pick = cols.map((c) =>
    c === 'id' ? UUID : c === 'take' ? 'j.take + @takeFrom + k.n' : c === 'state' ? '@state' : `j.${c}`,
  );
  db.run(
    `WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < @n)
    INSERT INTO jobs (${cols.join(', ')}) SELECT ${pick.join(', ')} FROM jobs j, k WHERE j.id = @id`,
    { id, n, state, takeFrom },
  );
  // Each copy's creation row, as an import writes one: a running farm's counters (farm-counters.ts)
  // move by these rows, so the counts include the copies without a restart.
  db.run(
    `INSERT INTO job_events (job_id, from_state, to_state, reason, actor, at)
    SELECT id, NULL, state, 'a copy for a studio-sized test farm', 'import', @at FROM jobs WHERE rowid > @before`,
    { before, at: Date.now() },
  );
}

/**
 * `count` copies of the stored job `like` in one statement, the same SQL on both stores (the store
 * conformance tests): ids `<like>-<tag><i>`, takes past the job's own + `takeFrom`, so every key
 * holds. `state` and `enqueuedAt` set every copy's; `last` replaces the last copy's shot or template
 * id (a reference to what is not stored, for the reference checks). Writes no events.
 */
export function jobCopies(
  db: SqlDb,
  like: string,
  count: number,
  o: {
    tag?: string;
    takeFrom?: number;
    state?: string;
    enqueuedAt?: number;
    last?: { shot_id?: number; template_id?: number };
  } = {},
): void {
  const last = o.last ?? {};
  db.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO jobs (id, shot_id, project, episode, shot, stage, take, template_id, template_name, params_json,
       priority, state, max_attempts, vram_gb, timeout_s, enqueued_at, created_at, updated_at)
     SELECT j.id || '-' || ? || n.i, CASE WHEN n.i = ? THEN ? ELSE j.shot_id END, j.project, j.episode, j.shot, j.stage,
       j.take + ? + n.i, CASE WHEN n.i = ? THEN ? ELSE j.template_id END, j.template_name, j.params_json,
       j.priority, COALESCE(?, j.state), j.max_attempts, j.vram_gb, j.timeout_s, COALESCE(?, j.enqueued_at),
       j.created_at, j.updated_at
     FROM jobs j, n WHERE j.id = ?`,
    count,
    o.tag ?? '',
    last.shot_id === undefined ? 0 : count,
    last.shot_id ?? 0,
    o.takeFrom ?? 0,
    last.template_id === undefined ? 0 : count,
    last.template_id ?? 0,
    o.state ?? null,
    o.enqueuedAt ?? null,
    like,
  );
}
