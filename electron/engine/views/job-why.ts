/**
 * Why a job is not running, whatever its state (`jobs.why`), and the one sentence of it that job
 * views carry (`waitReason`: the queue row, `jobs list`, the events). A queued job is explained per
 * workstation (wait-explainer.ts); a pending one by its dependency; a retry by its backoff.
 */
import type { InstanceWaitView, JobView, JobWhy, WaitLasting } from '../../../shared/domain.js';
import { NEEDS_OPERATOR_STATES } from '../../../shared/job-states.js';
import type { Db } from '../store/database.js';
import { toJobView, type JobRow } from '../store/job-rows.js';
import { jobRow } from '../store/job-store.js';
import { farmHold, type FarmFacts } from './farm-facts.js';
import { explainer, isBlockedWait, type Explain } from './wait-explainer.js';
import type { TemplateCache } from '../templates/template-cache.js';
import { drivenWords, hhmmss } from './wait-reasons.js';
import { shareNote } from '../scheduler/fair-share.js';
import { withBurstWait } from '../pools/runpod/burst-wait.js';

export function jobWhy(db: Db, job: JobRow, facts: FarmFacts, explain: Explain): JobWhy {
  const base = {
    jobId: job.id,
    state: job.state,
    blocked: false,
    instances: [],
    dependency: null,
    retryAt: null,
    source: facts.source,
  };
  switch (job.state) {
    case 'queued': {
      const wait = explain(job);
      const blocked = isBlockedWait(wait, facts, job);
      const instances = facts.instances.map((i): InstanceWaitView => {
        const w = wait.perInstance.find((p) => p.instanceId === i.id);
        return w
          ? { instanceId: i.id, name: i.name, kind: w.kind, lasting: w.lasting, text: w.text }
          : {
              instanceId: i.id,
              name: i.name,
              kind: null,
              lasting: null,
              // Another engine drives it: that engine takes the job there.
              text: i.drivenBy ? `can take it now (${drivenWords(i.drivenBy)})` : 'can take it now',
            };
      });
      const hold = farmHold(facts);
      if (hold && !blocked) return { ...base, summary: hold.words, lasting: hold.lasting, instances };
      const share = wait.dispatchable || blocked ? null : shareNote(job.project, facts.overShare);
      const summary = withBurstWait(share ? `${wait.summary}; ${share}` : wait.summary, facts.burstWait(job));
      return { ...base, summary, lasting: wait.dispatchable ? 'now' : wait.lasting, blocked, instances };
    }
    case 'pending':
      return { ...base, ...dependencyWait(db, job, explain) };
    case 'failed_retryable': {
      const at = job.not_before;
      const when = at === null ? 'is retried soon' : `retries at ${hhmmss(at)}`;
      return {
        ...base,
        summary: `${when} (attempt ${job.attempts + 1} of ${job.max_attempts}) after: ${job.state_reason ?? 'a failure'}`,
        lasting: 'now',
        retryAt: at,
      };
    }
    case 'held':
      return { ...base, summary: 'held by an operator: release it to queue it again', lasting: 'operator' };
    case 'running': {
      const on = facts.instances.find((i) => i.id === job.instance_id)?.name;
      return { ...base, summary: on ? `running on ${on}` : 'running', lasting: null };
    }
    default:
      return { ...base, summary: job.state_reason ? `${job.state}: ${job.state_reason}` : job.state, lasting: null };
  }
}

function dependencyWait(db: Db, job: JobRow, explain: Explain): Pick<JobWhy, 'summary' | 'lasting' | 'dependency'> {
  const dep = job.depends_on ? jobRow(db, job.depends_on) : null;
  if (!dep) return { summary: 'waits for a dependency that no longer exists', lasting: 'operator', dependency: null };
  const dependency = { id: dep.id, stage: dep.stage, take: dep.take, state: dep.state };
  const what = `waits for its ${dep.stage} take ${dep.take}`;
  if (dep.state === 'queued') {
    const w = explain(dep);
    const lasting: WaitLasting = w.dispatchable ? 'now' : w.lasting;
    return {
      summary: `${what}, which is queued: ${w.dispatchable ? 'about to be dispatched' : w.summary}`,
      lasting,
      dependency,
    };
  }
  const lasting: WaitLasting = NEEDS_OPERATOR_STATES.includes(dep.state) ? 'operator' : 'now';
  const hint = dep.state === 'held' ? ' (release it)' : lasting === 'operator' ? ' (make a new take of it)' : '';
  return { summary: `${what}, which is ${dep.state}${hint}`, lasting, dependency };
}

/**
 * Job views with their wait reasons: a queued job's summary (the stored one while blocked, else
 * explained against these facts, built only if some row needs them), a retry's time.
 */
export function viewsWithWaits(rows: readonly JobRow[], facts: () => FarmFacts, templates: TemplateCache): JobView[] {
  let explain: { facts: FarmFacts; explain: Explain } | null = null;
  return rows.map((r) => {
    const view = toJobView(r);
    if (r.state === 'queued' && !view.blocked) {
      if (!explain) {
        const f = facts();
        explain = { facts: f, explain: explainer(f, templates) };
      }
      view.waitReason =
        farmHold(explain.facts)?.words ?? withBurstWait(explain.explain(r).summary, explain.facts.burstWait(r));
    } else if (r.state === 'failed_retryable' && r.not_before !== null) {
      view.waitReason = `retries at ${hhmmss(r.not_before)}`;
    }
    return view;
  });
}
