/**
 * Explains queued jobs against one set of farm facts (farm-facts.ts) with the pure policy of
 * wait-reasons.ts, cheaply enough for a whole queue: jobs that need the same things — the same
 * capability answer, tags, VRAM, stage and priority — get the same answer, computed once.
 */
import type { JobRow } from '../store/job-rows.js';
import type { TemplateCache } from '../templates/template-cache.js';
import type { CapabilityAnswer } from '../scheduler/capability-answers.js';
import type { FarmFacts } from './farm-facts.js';
import type { JobSnapshot } from '../scheduler/policy.js';
import { explainWait, type JobWait } from './wait-reasons.js';

/** What a queued job's wait needs of its row. */
export type WaitingJob = Pick<
  JobRow,
  'id' | 'priority' | 'stage' | 'vram_gb' | 'tags_json' | 'template_id' | 'params_json'
>;

export type Explain = (job: WaitingJob) => JobWait;

/** An explainer over these facts, remembering answers per job shape for as long as it is kept. */
export function explainer(facts: FarmFacts, templates: TemplateCache): Explain {
  const reserved = new Set(
    facts.instances.map((i) => i.reservedFor?.jobId).filter((id): id is string => id !== undefined),
  );
  const memo = new Map<CapabilityAnswer, Map<string, JobWait>>();
  return (job) => {
    const template = templates.get(job.template_id);
    const answer = facts.capability(template, job.params_json);
    const vram = facts.vram?.(template, job.params_json);
    // A job an instance is reserved for sees that instance differently from every other job.
    const key = reserved.has(job.id)
      ? null
      : `${job.tags_json}\u001f${job.vram_gb}\u001f${job.stage}\u001f${job.priority}\u001f${vram ? JSON.stringify(vram) : ''}`;
    const known = key === null ? undefined : memo.get(answer)?.get(key);
    if (known) return known;
    const snap: JobSnapshot = {
      id: job.id,
      priority: job.priority,
      stage: job.stage,
      vramGb: job.vram_gb,
      tags: JSON.parse(job.tags_json) as string[],
      checkpoint: null,
      previousInstanceId: null,
      oomOn: null,
      ...(vram ? { vram } : {}),
    };
    const wait = explainWait(
      snap,
      facts.instances.map((i) => ({ ...i, capabilityProblems: answer.problems.get(i.id) ?? null })),
    );
    if (key !== null) {
      let perAnswer = memo.get(answer);
      if (!perAnswer) memo.set(answer, (perAnswer = new Map()));
      perAnswer.set(key, wait);
    }
    return wait;
  };
}

/** What the burst's "could a cloud endpoint take it?" reads of a job (pools/worker-pool.ts). */
type BurstCandidate = Parameters<NonNullable<FarmFacts['burstWait']['couldTake']>>[0];

/**
 * Blocked: some workstation is registered and every one of them says `never` — a tag, the total
 * VRAM, a node or model it lacks. Nothing the farm does by itself, and no enabling or un-draining,
 * would let the job run; adding or changing a workstation might.
 */
export function isBlockedWait(wait: JobWait, facts: FarmFacts, job: BurstCandidate): boolean {
  if (!(facts.instances.length > 0 && !wait.dispatchable && wait.lasting === 'never')) return false;
  // A job only a cloud endpoint could take waits for the burst (its reason says so), not blocked.
  // Asked last: it parses the job's and every endpoint's tags, and almost no job gets this far.
  return !facts.burstWait.couldTake?.(job);
}
