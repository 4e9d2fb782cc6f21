/**
 * One attempt of one job on a RunPod endpoint (issue 18; durable like a LAN attempt, SPEC §4).
 * The attempt row was committed before this runs; the RunPod job id is stored the moment /run
 * returns it; /status is the truth, asked at an interval with jitter, and 429/5xx/no answer are
 * asked again after a full-jitter backoff that honours Retry-After. Outputs are decoded to temp +
 * fsync + rename + SHA-256, then ledger rows and `completed` in one transaction. A cancel, a stop of
 * the farm or an abandonment (never started within the endpoint's execution timeout, /status gone
 * silent, the template's timeout passed) sends /cancel for our id — only ours — and the attempt's
 * reason says so. Closing the app (detach) leaves the RunPod job running for the next start.
 * The runner reports its end as a verdict; ../attempt/conclude.ts records it under the engine's
 * one rule (a storage fault holds the farm and the end is recorded after the retry; fenced
 * reports record nothing; an illegal transition is thrown in tests), as for a LAN attempt.
 *
 * Several engines on one PostgreSQL farm: the attempt runs under the endpoint's lease (`lease`),
 * and its writes are fenced on it (the batch it is given). Before /run and before a /cancel it
 * makes a fenced write, so an engine woken from a freeze past its lease sends neither: the engine
 * that holds the endpoint now follows the attempt by its stored RunPod id. If the lease moved on
 * between /run and storing the id, the id is known to this engine alone and its job must not run
 * unfollowed: it is cancelled on RunPod at once (the attempt stays open; the engine that took the
 * endpoint waits it out, as a restart does for an attempt without an id).
 */
import { ShotfarmError } from '../../../../shared/errors.js';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fullJitterDelay, sleepOn } from '../../comfy/backoff.js';
import { setRunpodJobId, type AttemptFacts, type AttemptRow } from '../../store/attempt-store.js';
import type { JobRow } from '../../store/job-rows.js';
import type { RunpodInstanceRow } from '../../store/instance-store.js';
import type { StoredTemplate } from '../../store/template-store.js';
import { jobPrompt } from '../../templates/job-prompt.js';
import { conclude } from '../attempt/conclude.js';
import type { ConcludeDeps } from '../attempt/deps.js';
import { plannedUploads } from '../attempt/inputs.js';
import { isLeaseLost, type LeaseStamp } from '../attempt/lease-fence.js';
import { storageFaultOf } from '../attempt/storage-hold.js';
import { classified, type Classification, type StopMode, type Verdict } from '../attempt/verdict.js';
import { RunpodHttpError, type RunpodClient } from './runpod-client.js';
import { attemptCost, type BilledTime } from './runpod-cost.js';
import {
  errorText,
  isPermanentWorkerError,
  workerOutputSchema,
  type StatusAnswer,
  type WorkerImage,
  type WorkerInput,
} from './runpod-protocol.js';
import { storeWorkerImages } from './runpod-outputs.js';
import { OutputTooLarge } from '../../files/output-file.js';
import type { StoredAsset } from '../../store/asset-store.js';
import { heardSilentSince } from '../../loop-stall.js';

export interface CloudRunnerDeps extends ConcludeDeps {
  /** The endpoint rejected the API key: it goes unhealthy ("API key rejected"); jobs are not failed for it. */
  keyRejected: (instanceId: string) => void;
  heard: (instanceId: string) => void;
  done: (runner: RunpodRunner) => void;
  /** The endpoint's lease this attempt runs under (several engines on PostgreSQL); null: no leases (SQLite). */
  lease: LeaseStamp | null;
}

/** How an attempt on RunPod ended, before it is recorded. */
type End =
  | { kind: 'completed'; status: StatusAnswer }
  | { kind: 'failed'; c: Classification; cost: BilledTime | null }
  | { kind: 'requeue'; reason: string }
  | { kind: 'stopped' }
  | { kind: 'detached' };

export class RunpodRunner {
  stopMode: StopMode | null = null;
  readonly finished: Promise<void>;
  private runpodId: string | null;
  private readonly ctl = new AbortController();
  private startedAt: number | null = null;
  /** The /status answers that failed in a row (backoff), and since when (abandonment). */
  private failures = 0;
  private failingSince: number | null = null;
  private cost: BilledTime | null = null;
  private cancelSent = false;

  constructor(
    private readonly d: CloudRunnerDeps,
    readonly job: JobRow,
    readonly attemptId: string,
    readonly endpoint: RunpodInstanceRow,
    private readonly client: RunpodClient,
    private readonly template: StoredTemplate,
    private readonly resume: AttemptRow | null,
  ) {
    this.runpodId = resume?.runpod_job_id ?? null;
    this.finished = this.run();
  }

  /** The RunPod job id of this attempt, once stored. */
  get jobIdOnRunpod(): string | null {
    return this.runpodId;
  }

  /** App closing (leave the RunPod job running), an operator's cancel, "stop farm". */
  detach(): void {
    this.stop('detach');
  }
  cancel(): void {
    this.stop('cancel');
  }
  stopFarm(): void {
    this.stop('stopFarm');
  }

  private stop(mode: StopMode): void {
    if (this.stopMode) return;
    this.stopMode = mode;
    this.ctl.abort();
  }

  private get facts(): AttemptFacts {
    return { startedAt: this.startedAt, billedS: this.cost?.billedS ?? null, costUsd: this.cost?.costUsd ?? null };
  }

  /** A wait a stop cuts short. */
  private sleep(ms: number): Promise<void> {
    return sleepOn(this.d.timers)(ms, this.ctl.signal);
  }

  private async run(): Promise<void> {
    let end: End;
    try {
      end = await this.attempt();
    } catch (err) {
      end = this.unexpected(err);
    }
    try {
      // Again only while the store fails: the farm holds, and the same end is recorded after its retry.
      for (;;) {
        if (this.stopMode && end.kind !== 'completed')
          end = this.stopMode === 'detach' ? { kind: 'detached' } : { kind: 'stopped' };
        try {
          const ended = await conclude(
            this.d,
            { jobId: this.job.id, attemptId: this.attemptId, facts: this.facts },
            () => this.decide(end),
          );
          if (ended?.changed.length) this.d.announce(ended.changed);
          break;
        } catch (err) {
          const fault = storageFaultOf(err);
          if (!fault) throw err;
          this.d.storage.hold(fault, `job ${this.job.shot} ${this.job.stage} on ${this.endpoint.name}`);
          if (!this.stopMode) await this.d.storage.whenRetry(this.ctl.signal);
          if (this.stopMode === 'detach') break; // the attempt stays open: the next start asks /status again
        }
      }
    } catch (err) {
      this.d.log(`cloud attempt ${this.attemptId} of job ${this.job.id}: ${(err as Error).stack ?? String(err)}`);
    } finally {
      this.d.done(this);
    }
  }

  private unexpected(err: unknown): End {
    // Another engine holds the endpoint now: nothing more is sent or written here; it follows the attempt.
    if (isLeaseLost(err)) {
      this.stopMode ??= 'detach';
      return { kind: 'detached' };
    }
    if (this.stopMode) return { kind: 'stopped' };
    if (err instanceof ShotfarmError && err.code === 'bad_input')
      return { kind: 'failed', c: classified('permanent', err.message), cost: null };
    if (err instanceof RunpodHttpError)
      return { kind: 'failed', c: classified('transient', `${this.endpoint.name}: ${err.message}`, true), cost: null };
    this.d.log(`cloud attempt ${this.attemptId}: unexpected ${(err as Error).stack ?? String(err)}`);
    return {
      kind: 'failed',
      c: classified('transient', `outputs could not be stored: ${(err as Error).message}`),
      cost: null,
    };
  }

  private async attempt(): Promise<End> {
    if (this.resume) {
      if (!this.runpodId) return this.waitOutUnknown(this.resume);
    } else {
      const submitted = await this.submit();
      if (submitted) return submitted;
    }
    return this.follow();
  }

  /** The workflow as a LAN server would get it (templates/job-prompt.ts), and the input images as base64 under the names it refers to. */
  private async input(): Promise<WorkerInput> {
    const images: { name: string; image: string }[] = [];
    const uploaded: Record<string, string> = {};
    for (const u of plannedUploads(this.d.db, this.job, this.template)) {
      const name = `shotfarm_${this.job.id}_${u.param}${extname(u.file) || '.png'}`;
      images.push({ name, image: (await readFile(u.file)).toString('base64') });
      uploaded[u.param] = name;
    }
    return {
      workflow: jobPrompt(this.job, this.template, uploaded) as Record<string, unknown>,
      ...(images.length ? { images } : {}),
    };
  }

  /** /run, and the id stored at once; an End when it did not get that far. */
  private async submit(): Promise<End | null> {
    const input = await this.input();
    if (this.stopMode) return { kind: 'stopped' };
    // The endpoint must still be this engine's (a LeaseLost here sends nothing).
    await this.fenceCheck();
    let answer: { id: string };
    try {
      // Not on the stop signal: a /run cut off after RunPod queued it would leave a job we have no id for.
      answer = await this.client.run(input);
    } catch (err) {
      if (err instanceof RunpodHttpError && err.rejectedKey) {
        this.d.keyRejected(this.endpoint.id);
        return {
          kind: 'requeue',
          reason: `${this.endpoint.name}: API key rejected; nothing was sent; back in the queue`,
        };
      }
      throw err;
    }
    this.runpodId = answer.id;
    let stored: boolean;
    try {
      stored = await this.d.batch.add(() => setRunpodJobId(this.d.db, this.attemptId, answer.id));
    } catch (err) {
      if (!isLeaseLost(err)) throw err;
      // Nobody else can name this RunPod job: it is cancelled rather than left to run unfollowed.
      this.stopMode ??= 'detach';
      await this.sendCancel(`${err.message}; its id could not be stored`, false);
      return { kind: 'detached' };
    }
    this.d.heard(this.endpoint.id);
    if (!stored) {
      // The attempt ended meanwhile (cancelled from another process): the RunPod job is ours and must not run on.
      await this.sendCancel('its attempt had already ended');
      return { kind: 'stopped' };
    }
    return null;
  }

  /**
   * Recovery of an attempt without a RunPod id: the engine stopped between /run and storing the id.
   * A job may be queued on RunPod that we cannot name, so cannot cancel; it is given the endpoint's
   * whole execution timeout to end on its own before the job is retried (the one at-most-once gap).
   */
  private async waitOutUnknown(a: AttemptRow): Promise<End> {
    const timeoutS = this.endpoint.runpod.executionTimeoutS;
    const until = a.dispatched_at + timeoutS * 1000;
    this.d.log(
      `cloud attempt ${this.attemptId} of job ${this.job.id} is unknown on RunPod (no id was stored); waiting out ${timeoutS} s before retrying`,
    );
    while (this.d.clock.now() < until && !this.stopMode) await this.sleep(Math.min(until - this.d.clock.now(), 60_000));
    if (this.stopMode) return this.stopMode === 'detach' ? { kind: 'detached' } : { kind: 'stopped' };
    return {
      kind: 'requeue',
      reason: `unknown on RunPod: the engine stopped between /run and storing its id; waited out ${this.endpoint.name}'s ${timeoutS} s execution timeout; back in the queue`,
    };
  }

  /** Polls /status until the job ends, is abandoned or the runner is stopped. */
  private async follow(): Promise<End> {
    const id = this.runpodId as string;
    const { config, clock, random } = this.d;
    const queueBudgetMs = this.endpoint.runpod.executionTimeoutS * 1000;
    const since = this.resume?.dispatched_at ?? clock.now();
    for (;;) {
      if (this.stopMode) return this.stopMode === 'detach' ? { kind: 'detached' } : { kind: 'stopped' };
      let s: StatusAnswer;
      try {
        s = await this.client.status(id, this.ctl.signal);
        this.failures = 0;
        this.failingSince = null;
        this.d.heard(this.endpoint.id);
      } catch (err) {
        if (this.stopMode) continue;
        if (!(err instanceof RunpodHttpError)) throw err;
        if (err.status === 404)
          return {
            kind: 'requeue',
            reason: `RunPod no longer knows job ${id} (expired or removed); back in the queue`,
          };
        if (err.rejectedKey) this.d.keyRejected(this.endpoint.id);
        this.failingSince ??= clock.now();
        // Failures while this engine itself was stalled (../../loop-stall.ts) are not RunPod's.
        if (
          !err.rejectedKey &&
          clock.now() - heardSilentSince(this.failingSince, this.d.listeningSince()) >= config.graceMs
        ) {
          await this.sendCancel(`/status failed for ${Math.round((clock.now() - this.failingSince) / 1000)} s`);
          return {
            kind: 'failed',
            c: classified(
              'transient',
              `${this.endpoint.name}: ${err.message} (for ${Math.round(config.graceMs / 1000)} s; /cancel sent for RunPod job ${id})`,
              true,
            ),
            cost: null,
          };
        }
        const backoff = fullJitterDelay(
          this.failures++,
          { baseMs: config.retry.baseMs, capMs: Math.max(config.retry.capMs, config.runpodPollMs) },
          random,
        );
        await this.sleep(Math.max(backoff, err.retryAfterMs ?? 0));
        continue;
      }
      switch (s.status) {
        case 'COMPLETED':
          this.cost = this.costOf(s);
          return { kind: 'completed', status: s };
        case 'FAILED': {
          this.cost = this.costOf(s);
          const text = errorText(s.error ?? (s.output as { error?: unknown } | undefined)?.error);
          const permanent = isPermanentWorkerError(text);
          return {
            kind: 'failed',
            c: classified(
              permanent ? 'permanent' : 'transient',
              `${this.endpoint.name}: worker-comfyui failed: ${text.split('\n')[0]?.slice(0, 300) ?? ''}`,
              !permanent,
            ),
            cost: this.cost,
          };
        }
        case 'TIMED_OUT':
          this.cost = this.costOf(s);
          return {
            kind: 'failed',
            c: classified('timeout', `${this.endpoint.name}: RunPod timed the job out (TIMED_OUT)`),
            cost: this.cost,
          };
        case 'CANCELLED':
          this.cost = this.costOf(s);
          return {
            kind: 'failed',
            c: classified('transient', `${this.endpoint.name}: job ${id} was cancelled on RunPod by someone else`),
            cost: this.cost,
          };
        case 'IN_PROGRESS':
          this.startedAt ??= clock.now();
          if (clock.now() - this.startedAt > this.job.timeout_s * 1000) {
            await this.sendCancel(`it ran past its ${this.job.timeout_s} s timeout`);
            return {
              kind: 'failed',
              c: classified(
                'timeout',
                `did not finish within its ${this.job.timeout_s} s timeout (/cancel sent for RunPod job ${id})`,
              ),
              cost: null,
            };
          }
          break;
        case 'IN_QUEUE':
          // A cold start is not a stall: the job waits for a worker, bounded by the endpoint's execution timeout.
          if (clock.now() - since > queueBudgetMs) {
            await this.sendCancel(`it never started within ${queueBudgetMs / 1000} s`);
            return {
              kind: 'failed',
              c: classified(
                'transient',
                `${this.endpoint.name}: job ${id} never started within ${queueBudgetMs / 1000} s (/cancel sent)`,
                true,
              ),
              cost: null,
            };
          }
          break;
      }
      await this.sleep(config.runpodPollMs * (0.8 + 0.4 * random()));
    }
  }

  private costOf(s: StatusAnswer): BilledTime {
    return attemptCost(s.delayTime, s.executionTime, this.endpoint.runpod.pricePerHourUsd);
  }

  /** A fenced write of nothing: throws LeaseLost once the endpoint's lease moved on (no leases: nothing to check). */
  private async fenceCheck(): Promise<void> {
    if (this.d.lease) await this.d.batch.add(() => undefined);
  }

  /**
   * /cancel for our id (never another), at most once per attempt, logged either way — and, under a
   * lease, only while the endpoint is still this engine's (`fenced`): another engine may follow it now.
   */
  private async sendCancel(why: string, fenced = true): Promise<boolean> {
    const id = this.runpodId;
    if (!id || this.cancelSent) return this.cancelSent;
    if (fenced) {
      try {
        await this.fenceCheck();
      } catch (err) {
        if (!isLeaseLost(err)) throw err;
        this.d.log(`no /cancel to ${this.endpoint.name} for RunPod job ${id} (${why}): ${err.message}`);
        return false;
      }
    }
    this.cancelSent = true;
    try {
      await this.client.cancel(id);
      this.d.log(`sent /cancel to ${this.endpoint.name} for RunPod job ${id} (job ${this.job.id}): ${why}`);
      return true;
    } catch (err) {
      this.d.log(`/cancel to ${this.endpoint.name} for RunPod job ${id} failed: ${(err as Error).message}`);
      return false;
    }
  }

  /**
   * Stores the answer's images as a LAN download is stored. A full or unwritable output disk is not
   * this attempt's failure (as on the LAN, scheduler/storage-hold.ts): the farm holds and the images
   * are stored again after its retry. 'stopped' when a stop came meanwhile (detached: the attempt
   * stays open and the next start asks /status again); an Error for any other failure.
   */
  private async storeOutputs(images: readonly WorkerImage[]): Promise<StoredAsset[] | 'stopped' | Error> {
    const { config, outputFs, storage } = this.d;
    for (;;) {
      try {
        const assets = await storeWorkerImages(images, config.outputRoot, this.job, {
          maxBytes: config.outputMaxBytes,
          ...(outputFs ? { fs: outputFs } : {}),
        });
        storage.ok();
        return assets;
      } catch (err) {
        const fault = storageFaultOf(err);
        if (!fault) return err instanceof Error ? err : new Error(String(err));
        storage.hold(fault, `job ${this.job.shot} ${this.job.stage} on ${this.endpoint.name}`);
        if (!this.stopMode) await storage.whenRetry(this.ctl.signal);
        if (this.stopMode) return 'stopped';
      }
    }
  }

  /** The verdict of an end (pools/attempt/conclude.ts records it); a stop sends /cancel for our id first. */
  private async decide(end: End): Promise<{ verdict: Verdict }> {
    const id = this.runpodId;
    const failed = (c: Classification) => ({ verdict: { kind: 'failed', c } as const });
    switch (end.kind) {
      case 'detached':
        return { verdict: { kind: 'none' } };
      case 'stopped': {
        const sent = await this.sendCancel(
          this.stopMode === 'cancel' ? 'the job was cancelled' : 'the farm was stopped',
        );
        const said = id
          ? sent
            ? `; /cancel sent to RunPod for job ${id}`
            : `; /cancel to RunPod for job ${id} failed`
          : '';
        if (this.stopMode === 'cancel')
          return { verdict: { kind: 'cancelled', reason: `cancelled by an operator${said}` } };
        return { verdict: { kind: 'requeue', reason: `farm stopped${said}; back in the queue` } };
      }
      case 'requeue':
        return { verdict: { kind: 'requeue', reason: end.reason } };
      case 'failed':
        return failed(end.c);
      case 'completed': {
        const out = workerOutputSchema.safeParse(end.status.output);
        const images = out.success ? (out.data.images ?? []) : [];
        if (!out.success || images.length === 0) {
          return failed(
            classified(
              'transient',
              `${this.endpoint.name}: COMPLETED without images (${out.success ? (out.data.error ?? out.data.errors?.join('; ') ?? 'empty output') : 'unexpected output shape'})`,
            ),
          );
        }
        const stored = await this.storeOutputs(images);
        if (stored === 'stopped')
          return this.decide(this.stopMode === 'detach' ? { kind: 'detached' } : { kind: 'stopped' });
        if (stored instanceof Error) {
          return failed(
            stored instanceof OutputTooLarge
              ? classified('permanent', stored.message)
              : classified('transient', `outputs could not be stored: ${stored.message}`),
          );
        }
        const ledger = {
          instanceId: this.endpoint.id,
          instanceName: this.endpoint.name,
          templateName: this.template.name,
          templateHash: this.template.hash,
          paramsJson: this.job.params_json,
          seed: this.job.seed,
        };
        return { verdict: { kind: 'completed', assets: stored, ledger } };
      }
    }
  }
}
