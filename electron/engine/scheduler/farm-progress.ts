/**
 * Can the farm still make progress by itself? `shotfarm run --until-idle` asks this after every
 * change: it must end when nothing more can happen without a person — every job finished, held,
 * or waiting for something no registered workstation offers (a tag, enough VRAM, a node) or only
 * a disabled or draining one does — and never wait forever on such a farm.
 */
import type { FarmState } from '../../../shared/farm-settings.js';
import type { Db } from '../store/database.js';
import { notDispatching } from '../views/farm-facts.js';
import { pendingJobs, QUEUE_START, queueCursorOf, queuedAfter, stateAndStage } from '../store/job-store.js';
import type { Explain } from '../views/wait-explainer.js';
import type { JobWait, WaitLasting } from '../views/wait-reasons.js';

/** Jobs that wait for the same thing, with the words for it. */
export interface StuckGroup {
  reason: string;
  count: number;
  /** `operator`: a person can unblock it here (enable, un-drain, release); `never`: this farm lacks what it needs. */
  lasting: Exclude<WaitLasting, 'now'>;
}

export interface FarmProgress {
  /** Some job can still move without anyone acting (running, retrying, or a workstation may free up or come back). */
  canProgress: boolean;
  /** Jobs that wait for something the farm may give by itself (busy or offline workstations…), grouped. */
  waiting: { reason: string; count: number }[];
  stuck: StuckGroup[];
}

interface Verdict {
  lasting: WaitLasting;
  reason: string;
}

export interface ProgressInputs {
  db: Db;
  /** The dispatcher's explanation for one queued job; built only when nothing moves (the queue is then read). */
  explain: () => Explain;
  /** Jobs moving by themselves (running, retrying: the farm's counters) plus attempts followed in this process. */
  moving: number;
  /** The operator's farm state: paused or stopped, nothing is dispatched until it is resumed. */
  farmState: FarmState;
}

export function farmProgress(p: ProgressInputs): FarmProgress {
  const moving = p.moving;
  const verdicts = new Map<string, Verdict>();
  const stuck = new Map<string, StuckGroup>();
  const waiting = new Map<string, number>();
  // Something is moving: the answer is yes, and the queue need not be read (it may hold 100k jobs).
  if (moving > 0) return { canProgress: true, waiting: [], stuck: [] };
  let canProgress = false;
  const count = (v: Verdict): void => {
    if (v.lasting === 'now') {
      canProgress = true;
      waiting.set(v.reason, (waiting.get(v.reason) ?? 0) + 1);
      return;
    }
    const g = stuck.get(v.reason) ?? { reason: v.reason, count: 0, lasting: v.lasting };
    g.count++;
    stuck.set(v.reason, g);
  };

  const explain = p.farmState === 'running' ? p.explain() : null;
  for (let after = QUEUE_START; ; ) {
    const rows = queuedAfter(p.db, after);
    if (rows.length === 0) break;
    for (const job of rows) {
      const v: Verdict =
        p.farmState !== 'running' || explain === null
          ? { lasting: 'operator', reason: notDispatching(p.farmState === 'running' ? 'paused' : p.farmState) }
          : verdictOf(explain(job));
      verdicts.set(job.id, v);
      count(v);
    }
    after = queueCursorOf(rows[rows.length - 1] as (typeof rows)[number]);
  }

  const pending = pendingJobs(p.db);
  const dependsOn = new Map(pending.map((r) => [r.id, r.depends_on]));
  const resolve = (id: string, seen: Set<string>): Verdict => {
    const known = verdicts.get(id);
    if (known) return known;
    const dep = dependsOn.get(id);
    let v: Verdict;
    if (!dep || seen.has(id)) v = { lasting: 'operator', reason: 'waits for a dependency that cannot complete' };
    else v = dependencyVerdict(p.db, dep, (depId) => resolve(depId, new Set([...seen, id])));
    verdicts.set(id, v);
    return v;
  };
  for (const r of pending) count(resolve(r.id, new Set()));

  return {
    canProgress,
    waiting: [...waiting].map(([reason, n]) => ({ reason, count: n })).sort((a, b) => b.count - a.count),
    stuck: [...stuck.values()].sort((a, b) => b.count - a.count),
  };
}

function verdictOf(w: JobWait): Verdict {
  return { lasting: w.dispatchable ? 'now' : w.lasting, reason: w.dispatchable ? 'about to be dispatched' : w.summary };
}

/** A pending job moves when its dependency completes; what the dependency waits for, it waits for. */
function dependencyVerdict(db: Db, depId: string, ofPending: (id: string) => Verdict): Verdict {
  const dep = stateAndStage(db, depId);
  if (!dep) return { lasting: 'operator', reason: 'waits for a dependency that no longer exists' };
  switch (dep.state) {
    case 'completed':
    case 'running':
    case 'failed_retryable':
      return { lasting: 'now', reason: `waits for its ${dep.stage}` };
    case 'failed_final':
    case 'timeout_kill':
    case 'cancelled':
      return {
        lasting: 'operator',
        reason: `waits for its ${dep.stage}, which ended ${dep.state} (make a new take of it)`,
      };
    case 'held':
      return { lasting: 'operator', reason: `waits for its ${dep.stage}, which is held` };
    case 'pending':
      return ofPending(depId);
    default: {
      const v = ofPending(depId);
      return v.lasting === 'now'
        ? { lasting: 'now', reason: `waits for its ${dep.stage}` }
        : { ...v, reason: `waits for its ${dep.stage}, which ${v.reason}` };
    }
  }
}
