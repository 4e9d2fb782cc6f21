/**
 * A farm's finished history, as a studio's store holds it after months: copies of the finished jobs
 * already stored (each with its attempts, events and ledger rows), `perJob` of each, written in one
 * statement per table (SQLite, the benches' store). The copies keep their workstation, so every
 * workstation's attempts index grows as a busy farm's does, and are written round after round (one
 * copy of every job, then the next), so one workstation's rows lie spread over the table as a farm's
 * do, not side by side; ids and ledger paths get a suffix and takes move past the originals', so
 * every unique key holds.
 */
import type { Db } from '../../../electron/engine/store/database.js';

const COPY = "'-h' || k.i";

function columns(db: Db, table: string): string[] {
  return db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).map((c) => c.name);
}

/** `perJob` copies of every completed job and its rows; returns the jobs in the store afterwards. */
export function fillFinishedHistory(db: Db, perJob: number): number {
  const models = '(SELECT id FROM history_models)';
  const copy = (table: string, where: string, map: Record<string, string>, skip: string[] = []) => {
    const cols = columns(db, table).filter((c) => !skip.includes(c));
    db.run(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
       INSERT INTO ${table} (${cols.join(', ')})
       SELECT ${cols.map((c) => map[c] ?? `t.${c}`).join(', ')} FROM k, ${table} t WHERE ${where} ORDER BY k.i, t.rowid`,
      perJob,
    );
  };
  db.transaction(() => {
    db.exec("CREATE TEMP TABLE history_models AS SELECT id FROM jobs WHERE state = 'completed'");
    // The jobs first: the other rows name them (foreign keys), and the ledger rows name the attempts.
    copy('jobs', `t.id IN ${models}`, {
      id: `t.id || ${COPY}`,
      take: 't.take + k.i * 1000',
      current_attempt_id: `t.current_attempt_id || ${COPY}`,
      depends_on: 'NULL',
    });
    copy('attempts', `t.job_id IN ${models}`, { id: `t.id || ${COPY}`, job_id: `t.job_id || ${COPY}` });
    copy(
      'job_events',
      `t.job_id IN ${models}`,
      { job_id: `t.job_id || ${COPY}`, attempt_id: `t.attempt_id || ${COPY}` },
      ['id'],
    );
    copy('assets', `t.job_id IN ${models}`, {
      id: `t.id || ${COPY}`,
      job_id: `t.job_id || ${COPY}`,
      attempt_id: `t.attempt_id || ${COPY}`,
      path: `t.path || ${COPY}`,
    });
    db.exec('DROP TABLE history_models');
  });
  return db.one<{ n: number }>('SELECT COUNT(*) AS n FROM jobs')?.n ?? 0;
}
