/**
 * Completed runs of keyframe-img2img written through the store functions the scheduler and the
 * attempt runner use (claim, then the job completed with its attempt's real start), with lengths a test can work out by hand:
 * on gpu-01 (RTX 4090) a 100 s cold run and warm runs of 10–50 s (median 30 s, p90 46 s), each
 * queued 7 s on the GPU first; on gpu-02 (RTX 3060) a 200 s cold run and two warm ones (60, 70 s),
 * fewer than the run-time model's threshold.
 */
import { completeJob } from '../../electron/engine/pools/attempt/outcomes.js';
import { claimAttempt } from '../../electron/engine/store/attempt-store.js';
import type { ManualClock } from '../../electron/engine/clock.js';
import type { Db } from '../../electron/engine/store/database.js';
import { importText, type TestEngine } from './engine.js';

export const RTX4090 = 'NVIDIA GeForce RTX 4090';
export const RTX3060 = 'NVIDIA GeForce RTX 3060';

/** A queued job claimed now on `instance` (dispatched now): its attempt's id. */
export function claimRun(db: Db, clock: ManualClock, jobId: string, instance: string, gpu: string): string {
  const attemptId = `att-${jobId}`;
  claimAttempt(db, clock, {
    jobId,
    attemptId,
    instanceId: instance,
    instanceName: instance,
    gpuName: gpu,
    vramAtDispatch: null,
    leaseMs: 60_000,
  });
  return attemptId;
}

/** The claimed job completed now, its prompt having started on the GPU at `startedAt` (collect's last step, as the runner ends a good run). */
export function endRun(
  db: Db,
  clock: ManualClock,
  jobId: string,
  attemptId: string,
  instance: string,
  startedAt: number,
): void {
  const ctx = {
    instanceId: instance,
    instanceName: instance,
    templateName: '',
    templateHash: '',
    paramsJson: '{}',
    seed: null,
  };
  completeJob(db, clock, jobId, attemptId, [], ctx, { startedAt });
}

/** One completed run of a queued job: claimed now, started on the GPU `queueMs` later, ended `runMs` after that. */
export function writeRun(
  db: Db,
  clock: ManualClock,
  jobId: string,
  instance: string,
  gpu: string,
  queueMs: number,
  runMs: number,
): void {
  const attemptId = claimRun(db, clock, jobId, instance, gpu);
  const startedAt = clock.now() + queueMs;
  clock.advance(queueMs + runMs);
  endRun(db, clock, jobId, attemptId, instance, startedAt);
  // The next prompt is sent well after this one ended: each run ends at its own end.
  clock.advance(5_000);
}

/** `n` queued keyframe-img2img jobs in Moonfall/ep101 (shots sh001…), their ids in shot order. */
export async function keyframeJobs(t: TestEngine, n: number): Promise<string[]> {
  await importText(
    t.engine,
    'shots.json',
    JSON.stringify({
      project: 'Moonfall',
      episode: 'ep101',
      shots: Array.from({ length: n }, (_, i) => ({
        id: `sh${String(i + 1).padStart(3, '0')}`,
        stage: 'keyframe',
        template: 'keyframe-img2img',
        parameters: { prompt: `p${i}` },
      })),
    }),
  );
  return t.engine.db.all<{ id: string }>('SELECT id FROM jobs ORDER BY shot_id').map((r) => r.id);
}

export async function seedTemplateRuns(t: TestEngine): Promise<void> {
  const ids = await keyframeJobs(t, 9);
  const next = (): string => ids.shift() as string;
  const runOn = (jobId: string, instance: string, gpu: string, queueMs: number, runMs: number) =>
    writeRun(t.engine.db, t.clock, jobId, instance, gpu, queueMs, runMs);
  runOn(next(), 'gpu-01', RTX4090, 7_000, 100_000);
  for (const s of [30, 10, 50, 20, 40]) runOn(next(), 'gpu-01', RTX4090, 7_000, s * 1000);
  runOn(next(), 'gpu-02', RTX3060, 0, 200_000);
  runOn(next(), 'gpu-02', RTX3060, 0, 60_000);
  runOn(next(), 'gpu-02', RTX3060, 0, 70_000);
}
