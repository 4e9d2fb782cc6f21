/**
 * Which engine events deserve a desktop notification (SPEC §9): a rush job completed, or a job
 * failed for good (a final failure or a timeout kill). Derived from `job.changed` payloads; each
 * (job, state, attempt) is announced once, since a job's row can be published more than once.
 */
import { z } from 'zod';

const jobFields = z.object({
  id: z.string(),
  project: z.string(),
  episode: z.string(),
  shot: z.string(),
  stage: z.string(),
  take: z.number(),
  priority: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  attempts: z.number(),
});

export interface JobNotice {
  jobId: string;
  kind: 'rush-completed' | 'failed';
  title: string;
  body: string;
}

const FAILED_FOR_GOOD = new Set(['failed_final', 'timeout_kill']);
/** Enough to never repeat a recent notice; old keys are forgotten first. */
const MEMORY = 2000;

export class JobNotifier {
  private readonly announced = new Set<string>();

  /** The notice for one `job.changed` payload, or null. */
  consider(payload: unknown): JobNotice | null {
    const parsed = z.object({ job: jobFields }).safeParse(payload);
    if (!parsed.success) return null;
    const j = parsed.data.job;
    const rushDone = j.state === 'completed' && j.priority === 'rush';
    const failed = FAILED_FOR_GOOD.has(j.state);
    if (!rushDone && !failed) return null;
    const key = `${j.id}:${j.state}:${j.attempts}`;
    if (this.announced.has(key)) return null;
    this.announced.add(key);
    if (this.announced.size > MEMORY) this.announced.delete(this.announced.values().next().value as string);
    const what = `${j.project} ${j.episode} ${j.shot} · ${j.stage} take ${j.take}`;
    if (rushDone) return { jobId: j.id, kind: 'rush-completed', title: 'Rush shot rendered', body: what };
    const why = j.state === 'timeout_kill' ? 'timed out' : 'failed';
    return {
      jobId: j.id,
      kind: 'failed',
      title: `Shot ${why} for good`,
      body: j.stateReason ? `${what}\n${j.stateReason}` : what,
    };
  }
}
