/**
 * Recording how an attempt ended (SPEC §4.5, §5), in one shape: each outcome is recorded by one
 * case of `conclude`'s switch — collect a finished prompt's outputs and complete the job with its
 * ledger rows, classify a failure and retry or fail, requeue, or take a stopped runner's prompt off
 * the server first — and every case ends in the same tail: the instance registry hears the result
 * (slot, quarantine, the loaded model), `/free` after a failure, and the job is announced once it
 * is stored. Every write goes through the farm's commit batch, so it is durable before it is
 * announced; a report the state door fences off (stale attempt, wrong state) records nothing and
 * still runs the tail. An illegal transition is a bug: logged loudly (and thrown in tests).
 */
import { basename } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { ComfyRequestError, settle } from '../comfy/observation.js';
import type { HistoryEntry } from '../comfy/responses.js';
import { isFencedReport, isIllegalTransition } from '../job-state.js';
import type { StoredAsset } from '../store/asset-store.js';
import { endAttempt } from '../store/attempt-store.js';
import type { AttemptScope, Outcome } from './attempt-scope.js';
import { OutputTooLarge } from '../files/output-file.js';
import { collectOutputs } from './collect.js';
import { classify, type AttemptObservation } from './failure.js';
import { interruptAndRemove } from './interrupt-prompt.js';
import { completeJob, failJob, requeueJob } from './outcomes.js';
import { checkpointOf } from './policy.js';
import { terminalMessage } from './prompt-watch.js';
import { storageFaultOf } from './storage-hold.js';

/** What the tail does once the outcome is recorded (or refused). */
interface Ending {
  result: 'ok' | 'job_failure' | 'instance_failure' | 'instance_unfit';
  /** Ask the server to unload models (after a failure or a prompt taken off). */
  free: boolean;
  /** Jobs whose stored state changed, to announce. */
  changed: readonly string[];
  /** The model this attempt left loaded (a completed one only). */
  checkpoint?: string | null;
}

/** A report refused by the fence, or a failure to record: nothing of this attempt was stored. */
const NOTHING: Ending = { result: 'job_failure', free: false, changed: [] };

export async function concludeAttempt(a: AttemptScope, outcome: Outcome): Promise<void> {
  let end: Ending;
  try {
    end = await record(a, outcome);
  } catch (err) {
    // A full or unwritable disk, a locked database: not this attempt's end — the runner holds the
    // farm and takes the attempt up again (its result is safe on the server meanwhile).
    if (storageFaultOf(err)) throw err;
    end = NOTHING;
    if (isIllegalTransition(err)) {
      a.deps.log(`ILLEGAL TRANSITION (a bug) ending attempt ${a.attemptId} of job ${a.job.id} as ${outcome.kind}: ${err.message}`);
      if (a.deps.config.failOnIllegalTransition) queueMicrotask(() => { throw err; });
    } else if (!isFencedReport(err)) {
      a.deps.log(`attempt ${a.attemptId} of job ${a.job.id}: recording its end (${outcome.kind}) failed: ${(err as Error).message}`);
    }
  }
  a.deps.registry.attemptEnded(a.instance.row.id, a.attemptId, end.result, end.checkpoint ?? null);
  if (end.free) void settle(() => a.client.free({ unloadModels: true }));
  if (end.changed.length) a.deps.announce(end.changed);
}

async function record(a: AttemptScope, outcome: Outcome): Promise<Ending> {
  const { db, clock, batch } = a.deps;
  const job = a.job.id;
  switch (outcome.kind) {
    case 'detached':
      return { result: 'ok', free: false, changed: [] };
    case 'cancelled':
      await interruptAndRemove(a);
      await batch.add(() => endAttempt(db, clock, a.attemptId, { ...a.facts, outcome: 'cancelled', reason: 'cancelled by an operator' }));
      return { result: 'job_failure', free: true, changed: [job] };
    case 'stopped':
      await interruptAndRemove(a);
      await batch.add(() => requeueJob(db, clock, job, a.attemptId, 'farm stopped; back in the queue', 'requeued', a.facts));
      return { result: 'job_failure', free: true, changed: [job] };
    case 'displaced':
    case 'requeue':
      await batch.add(() => requeueJob(db, clock, job, a.attemptId, outcome.reason, 'requeued', a.facts));
      return { result: 'ok', free: false, changed: [job] };
    case 'failed':
      return fail(a, outcome.obs);
    case 'finished': {
      const failed = observationOf(outcome.entry, a.interruptRequested);
      if (failed) return fail(a, failed);
      const got = await collect(a, outcome.entry);
      if (!got.ok) {
        // A graceful stop cut this download short (its bounded wait was over): nothing is recorded —
        // the attempt stays open and the next start collects the outputs from the server's history.
        if (a.stopMode === 'detach') return { result: 'ok', free: false, changed: [] };
        return fail(a, got.obs);
      }
      const result = await batch.add(() => completeJob(db, clock, job, a.attemptId, got.assets, {
        instanceId: a.instance.row.id, instanceName: a.name, templateName: a.template.name, templateHash: a.template.hash,
        paramsJson: a.job.params_json, seed: a.job.seed,
      }, a.facts));
      return { result: 'ok', free: false, changed: result.changed, checkpoint: a.workflow ? checkpointOf(a.workflow) : null };
    }
  }
}

async function fail(a: AttemptScope, obs: AttemptObservation): Promise<Ending> {
  const { db, clock, random, config, batch } = a.deps;
  const c = classify(obs, a.name);
  const result = await batch.add(() => failJob(db, clock, random, a.job.id, a.attemptId, c, config.retry, a.facts));
  return { result: c.unfit ? 'instance_unfit' : c.instanceLevel ? 'instance_failure' : 'job_failure', free: true, changed: result.changed };
}

/** What a finished run's history says went wrong; null when it succeeded (collect it). */
function observationOf(entry: HistoryEntry, interruptRequested: boolean): AttemptObservation | null {
  const terminal = terminalMessage(entry);
  if (entry.status?.statusStr === 'success' || (entry.status === null && terminal === null)) return null;
  const d = terminal?.data ?? {};
  if (terminal?.type === 'execution_interrupted') {
    return { kind: 'interrupted', requested: interruptRequested, nodeId: str(d.node_id), nodeType: str(d.node_type) };
  }
  return {
    kind: 'execution_error', nodeId: str(d.node_id), nodeType: str(d.node_type),
    exceptionType: str(d.exception_type) ?? 'unknown', exceptionMessage: str(d.exception_message) ?? 'no message',
  };
}

type Collected = { ok: true; assets: StoredAsset[] } | { ok: false; obs: AttemptObservation };

/** Downloads (and copies to S3) a successful run's outputs: its assets, or what went wrong. Records nothing. */
async function collect(a: AttemptScope, entry: HistoryEntry): Promise<Collected> {
  const { config, registry, uploader } = a.deps;
  // The GPU is done with this prompt: let the next one start while we download. (Usually freed
  // already at its execution_success, attempt-follow.ts; a recovered or polled end frees it here.)
  registry.releaseSlot(a.instance.row.id, a.attemptId);
  a.phase('collecting');
  let assets: StoredAsset[];
  try {
    assets = await collectOutputs(a.client, entry, config.outputRoot, a.job, {
      maxBytes: config.outputMaxBytes, deadlineMs: Math.max(config.downloadMinMs, a.job.timeout_s * 1000), ...(a.deps.outputFs ? { fs: a.deps.outputFs } : {}),
    }, a.signal);
  } catch (err) {
    // A full or unwritable output disk: the farm waits for it (the runner holds), the attempt is not failed.
    if (storageFaultOf(err)) throw err;
    if (err instanceof OutputTooLarge) return { ok: false, obs: { kind: 'output_too_large', detail: err.message } };
    if (err instanceof ShotfarmError) return failed(err.message, err.code === 'storage');
    if (err instanceof ComfyRequestError) return failed(err.message, false);
    return failed((err as Error).message, (err as NodeJS.ErrnoException).code === 'ENOSPC');
  }
  if (uploader) {
    try {
      for (const asset of assets) await uploader.upload(asset.path, uploader.keyFor(a.job, basename(asset.path)), asset.sha256);
    } catch (err) {
      // The files stay on disk; the attempt fails transiently and a retry collects and uploads again.
      return failed(`the copy to S3 was not confirmed: ${(err as Error).message}`, false);
    }
  }
  return { ok: true, assets };
}

function failed(detail: string, diskFull: boolean): Collected {
  return { ok: false, obs: { kind: 'collect_failed', detail, diskFull } };
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : v === null || v === undefined ? null : String(v);
}
