/** Read models built from the stores: a job's attempt history, the Failures view's groups, the per-GPU timeline. */
import {
  hasStarted,
  type AttemptView,
  type ContactGap,
  type FailureGroup,
  type TimelineView,
} from '../../../shared/domain.js';
import { parseServerLog } from '../../../shared/server-log.js';
import type { LivePhases } from '../pools/comfy-lan/live-attempts.js';
import { attemptsOfJob, timelineRows, type AttemptRow, type TimelineRow } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';
import { listInstanceRows } from '../store/instance-store.js';
import { toJobView } from '../store/job-rows.js';
import { failedJobsByReason, type OrderedFailedJobRow } from '../store/job-store.js';

function toAttemptView(r: AttemptRow): AttemptView {
  return {
    id: r.id,
    jobId: r.job_id,
    n: r.n,
    instanceId: r.instance_id,
    instanceName: r.instance_name,
    gpuName: r.gpu_name,
    state: r.state,
    promptNumber: r.prompt_number,
    outcome: r.outcome,
    errorClass: r.error_class,
    reason: r.reason,
    nodeId: r.node_id,
    nodeType: r.node_type,
    exceptionType: r.exception_type,
    exceptionMessage: r.exception_message,
    traceback: r.traceback,
    serverLog: parseServerLog(r.server_log_json),
    queuedAt: r.queued_at,
    dispatchedAt: r.dispatched_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

export function jobAttempts(db: Db, jobId: string): AttemptView[] {
  return attemptsOfJob(db, jobId).map(toAttemptView);
}

/**
 * The grouping key of a failure reason: the same problem on different workstations, or after a
 * different number of attempts, is one group.
 */
export function failureKey(reason: string, instanceNames: readonly string[]): string {
  let k = reason
    .replace(/^gave up after \d+ attempts?: /, '')
    .replace(/; (retry \d+ of \d+ after a short wait|no attempts left.*)$/, '');
  for (const name of instanceNames) k = k.split(` on ${name}`).join('').split(`${name} `).join('');
  return k.replace(/\s+/g, ' ').trim();
}

/**
 * Jobs that failed (for good, by timeout, or waiting to retry), grouped by reason, the group with
 * the most unhandled failures first (a group of superseded takes only sinks to the end).
 */
export function failureGroups(db: Db, limitPerGroup = 500): FailureGroup[] {
  const names = listInstanceRows(db).map((r) => r.name);
  const groups = new Map<string, FailureGroup & { rows: OrderedFailedJobRow[] }>();
  // SQL counts each stored reason and picks its first rows; reasons that differ only by a
  // workstation's name or an attempt count are one group here, their rows merged in the same order.
  for (const s of failedJobsByReason(db, limitPerGroup)) {
    const reason = failureKey(s.reason, names);
    const key = `${s.errorClass ?? ''}\u001f${reason}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, reason, errorClass: s.errorClass, count: 0, superseded: 0, jobs: [], rows: [] };
      groups.set(key, g);
    }
    g.count += s.count;
    g.superseded += s.superseded;
    g.rows.push(...s.rows);
  }
  // Equal counts keep the order of each group's first failure (as when the groups were met row by row).
  return [...groups.values()]
    .map(({ rows, ...g }) => ({ g, rows: rows.sort(failedOrder).slice(0, limitPerGroup) }))
    .sort(
      (a, b) =>
        b.g.count - b.g.superseded - (a.g.count - a.g.superseded) ||
        b.g.count - a.g.count ||
        failedOrder(a.rows[0] as OrderedFailedJobRow, b.rows[0] as OrderedFailedJobRow),
    )
    .map(({ g, rows }) => ({ ...g, jobs: rows.map((r) => ({ ...toJobView(r), supersededByTake: r.newer_take })) }));
}

/** The Failures view's order within a group (as failedJobsByReason picks): latest takes, most recent change, insertion order. */
function failedOrder(a: OrderedFailedJobRow, b: OrderedFailedJobRow): number {
  return (
    Number(a.newer_take !== null) - Number(b.newer_take !== null) || b.updated_at - a.updated_at || a.row_n - b.row_n
  );
}

/** An attempt's stretches without an answer from its workstation: the closed ones, then the open one. */
function contactGaps(closedJson: string | null, openSince: number | null): ContactGap[] {
  const gaps: ContactGap[] = closedJson
    ? (JSON.parse(closedJson) as [number, number][]).map(([from, to]) => ({ from, to }))
    : [];
  if (openSince !== null) gaps.push({ from: openSince, to: null });
  return gaps;
}

/** Outcomes of attempts that end without their prompt having run: no start unless one was seen. */
const UNSTARTED_ENDS: ReadonlySet<string> = new Set(['requeued', 'cancelled']);

/**
 * When a bar's prompt started on its GPU. An open attempt: as the farm following it knows (null
 * while it waits behind the running prompt), else the stored checkpoint's. An ended one: the stored
 * start; an end that ran without a seen start (an older row, a run too short to see) from its dispatch.
 */
function barStart(r: TimelineRow, live: LivePhases | null): number | null {
  if (r.finished_at === null) {
    const a = live?.ofAttempt(r.id);
    if (a) return hasStarted(a.phase) ? (a.startedAt ?? r.started_at ?? r.dispatched_at) : null;
    return r.started_at;
  }
  return r.started_at ?? (r.outcome !== null && UNSTARTED_ENDS.has(r.outcome) ? null : r.dispatched_at);
}

/** Attempts overlapping [from, to), per instance lane, for the per-GPU Gantt (`live`: the open attempts' phases, when a farm runs here). */
export function timeline(
  db: Db,
  from: number,
  to: number,
  live: LivePhases | null = null,
): Omit<TimelineView, 'farmPeriods'> {
  const lanes = listInstanceRows(db).map((r) => ({ instanceId: r.id, name: r.name, gpuName: r.gpu_name }));
  const bars = timelineRows(db, from, to).map((r) => ({
    attemptId: r.id,
    jobId: r.job_id,
    label: `${r.shot} ${r.stage} t${r.take}`,
    instanceId: r.instance_id,
    start: r.dispatched_at,
    startedAt: barStart(r, live),
    end: r.finished_at,
    outcome: r.outcome,
    contactGaps: contactGaps(r.contact_gaps_json, r.contact_lost_at),
  }));
  return { from, to, lanes, bars };
}
