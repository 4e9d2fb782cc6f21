/** Read-side queries for attempts: a job's history, the Failures view, the timeline. */
import type { AttemptView, FailureGroup, TimelineView } from '../../../shared/domain.js';
import type { Db } from '../store/database.js';
import { toJobView, type JobRow } from '../store/job-rows.js';
import { stmt } from '../store/statements.js';

interface AttemptDbRow {
  id: string; job_id: string; n: number; instance_id: string | null; instance_name: string | null; gpu_name: string | null;
  state: string; outcome: string | null; error_class: string | null; reason: string | null; node_id: string | null;
  node_type: string | null; exception_type: string | null; queued_at: number; dispatched_at: number; started_at: number | null;
  finished_at: number | null;
}

function toAttemptView(r: AttemptDbRow): AttemptView {
  return {
    id: r.id, jobId: r.job_id, n: r.n, instanceId: r.instance_id, instanceName: r.instance_name, gpuName: r.gpu_name, state: r.state,
    outcome: r.outcome, errorClass: r.error_class, reason: r.reason, nodeId: r.node_id, nodeType: r.node_type,
    exceptionType: r.exception_type, queuedAt: r.queued_at, dispatchedAt: r.dispatched_at, startedAt: r.started_at, finishedAt: r.finished_at,
  };
}

export function jobAttempts(db: Db, jobId: string): AttemptView[] {
  return (stmt(db, 'SELECT * FROM attempts WHERE job_id = ? ORDER BY n').all(jobId) as AttemptDbRow[]).map(toAttemptView);
}

/**
 * The grouping key of a failure reason: the same problem on different workstations, or after a
 * different number of attempts, is one group.
 */
export function failureKey(reason: string, instanceNames: readonly string[]): string {
  let k = reason.replace(/^gave up after \d+ attempts?: /, '').replace(/; (retry \d+ of \d+ after a short wait|no attempts left.*)$/, '');
  for (const name of instanceNames) k = k.split(` on ${name}`).join('').split(`${name} `).join('');
  return k.replace(/\s+/g, ' ').trim();
}

/** Jobs that failed (for good, by timeout, or waiting to retry), grouped by reason, largest group first. */
export function failureGroups(db: Db, limitPerGroup = 500): FailureGroup[] {
  const names = (stmt(db, 'SELECT name FROM instances').all() as { name: string }[]).map((r) => r.name);
  const rows = stmt(db, `SELECT * FROM jobs WHERE state IN ('failed_final', 'timeout_kill', 'failed_retryable') ORDER BY updated_at DESC`).all() as JobRow[];
  const groups = new Map<string, FailureGroup>();
  for (const r of rows) {
    const reason = r.state_reason ?? 'no reason recorded';
    const key = `${r.error_class ?? ''}\u001f${failureKey(reason, names)}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, reason: failureKey(reason, names), errorClass: r.error_class, count: 0, jobs: [] };
      groups.set(key, g);
    }
    g.count++;
    if (g.jobs.length < limitPerGroup) g.jobs.push(toJobView(r));
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Attempts overlapping [from, to), per instance lane, for the per-GPU Gantt. */
export function timeline(db: Db, from: number, to: number): TimelineView {
  const lanes = (stmt(db, 'SELECT id, name, gpu_name FROM instances ORDER BY name').all() as { id: string; name: string; gpu_name: string | null }[]).map(
    (r) => ({ instanceId: r.id, name: r.name, gpuName: r.gpu_name }),
  );
  const bars = (stmt(db, `SELECT a.id, a.job_id, a.instance_id, a.dispatched_at, a.started_at, a.finished_at, a.outcome, j.shot, j.stage, j.take
      FROM attempts a JOIN jobs j ON j.id = a.job_id
      WHERE a.dispatched_at < @to AND (a.finished_at IS NULL OR a.finished_at >= @from)
      ORDER BY a.dispatched_at LIMIT 20000`).all({ from, to }) as {
    id: string; job_id: string; instance_id: string | null; dispatched_at: number; started_at: number | null; finished_at: number | null;
    outcome: string | null; shot: string; stage: string; take: number;
  }[]).map((r) => ({
    attemptId: r.id, jobId: r.job_id, label: `${r.shot} ${r.stage} t${r.take}`, instanceId: r.instance_id,
    start: r.dispatched_at, end: r.finished_at, outcome: r.outcome,
  }));
  return { from, to, lanes, bars };
}
