/**
 * Recording how an attempt ended (SPEC §4.5, §5): collect a finished prompt's outputs and complete
 * the job with its ledger rows in one transaction, or classify the failure and retry, fail or
 * requeue; a stopped runner takes its prompt off the server first. The instance registry hears the
 * result (slots, quarantine, the loaded model) and the job is announced once it is stored.
 */
import { basename } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import { ComfyRequestError, settle } from '../comfy/observation.js';
import type { HistoryEntry } from '../comfy/responses.js';
import { endAttempt } from '../store/attempt-store.js';
import type { AttemptScope, Outcome } from './attempt-scope.js';
import { OutputTooLarge } from '../files/output-file.js';
import { collectOutputs } from './collect.js';
import { classify, type AttemptObservation } from './failure.js';
import { interruptAndRemove } from './interrupt-prompt.js';
import { completeJob, failJob, isStale, requeueJob } from './outcomes.js';
import { checkpointOf } from './policy.js';
import { terminalMessage } from './prompt-watch.js';
import { storageFaultOf } from './storage-hold.js';

export async function concludeAttempt(a: AttemptScope, outcome: Outcome): Promise<void> {
  const { db, clock, random, config, registry } = a.deps;
  const instanceId = a.instance.row.id;
  if (a.stopMode === 'detach') {
    registry.attemptEnded(instanceId, a.attemptId, 'ok', null);
    return;
  }
  if (a.stopMode === 'cancel' || a.stopMode === 'stopFarm') {
    await interruptAndRemove(a);
    if (a.stopMode === 'cancel') endAttempt(db, clock, a.attemptId, { ...a.facts, outcome: 'cancelled', reason: 'cancelled by an operator' });
    else {
      try {
        requeueJob(db, clock, a.job.id, a.attemptId, 'farm stopped; back in the queue', 'requeued', a.facts);
      } catch (err) {
        if (!isStale(err)) throw err;
      }
    }
    registry.attemptEnded(instanceId, a.attemptId, 'job_failure', null);
    void settle(() => a.client.free({ unloadModels: true }));
    a.deps.announce([a.job.id]);
    return;
  }
  if (outcome.kind === 'detached') return;
  if (outcome.kind === 'requeue') {
    requeueJob(db, clock, a.job.id, a.attemptId, outcome.reason, 'requeued', a.facts);
    registry.attemptEnded(instanceId, a.attemptId, 'ok', null);
    a.deps.announce([a.job.id]);
    return;
  }
  let obs: AttemptObservation;
  if (outcome.kind === 'failed') obs = outcome.obs;
  else {
    const found = observationOf(outcome.entry, a.interruptRequested);
    if (found === null) {
      const failed = await collect(a, outcome.entry);
      if (failed === null) return;
      if (a.stopMode === 'detach') return leftForNextStart(a);
      obs = failed;
    } else obs = found;
  }
  const c = classify(obs, a.name);
  const result = failJob(db, clock, random, a.job.id, a.attemptId, c, config.retry, a.facts);
  registry.attemptEnded(instanceId, a.attemptId, c.unfit ? 'instance_unfit' : c.instanceLevel ? 'instance_failure' : 'job_failure', null);
  void settle(() => a.client.free({ unloadModels: true }));
  a.deps.announce(result.changed);
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

/** Collect, then ledger + completed in one transaction. Returns an observation if it failed. */
async function collect(a: AttemptScope, entry: HistoryEntry): Promise<AttemptObservation | null> {
  const { db, clock, config, registry, uploader } = a.deps;
  // The GPU is done with this prompt: let the next one start while we download.
  registry.releaseSlot(a.instance.row.id, a.attemptId);
  a.phase('collecting');
  let assets;
  try {
    assets = await collectOutputs(a.client, entry, config.outputRoot, a.job, {
      maxBytes: config.outputMaxBytes, deadlineMs: Math.max(config.downloadMinMs, a.job.timeout_s * 1000), ...(a.deps.outputFs ? { fs: a.deps.outputFs } : {}),
    }, a.signal);
  } catch (err) {
    // A full or unwritable output disk: the farm waits for it (the runner holds), the attempt is not failed.
    if (storageFaultOf(err)) throw err;
    if (err instanceof OutputTooLarge) return { kind: 'output_too_large', detail: err.message };
    if (err instanceof ShotfarmError) return { kind: 'collect_failed', detail: err.message, diskFull: err.code === 'storage' };
    if (err instanceof ComfyRequestError) return { kind: 'collect_failed', detail: err.message, diskFull: false };
    const code = (err as NodeJS.ErrnoException).code;
    return { kind: 'collect_failed', detail: (err as Error).message, diskFull: code === 'ENOSPC' };
  }
  if (uploader) {
    try {
      for (const asset of assets) await uploader.upload(asset.path, uploader.keyFor(a.job, basename(asset.path)), asset.sha256);
    } catch (err) {
      // The files stay on disk; the attempt fails transiently and a retry collects and uploads again.
      const message = err instanceof ShotfarmError ? err.message : (err as Error).message;
      return { kind: 'collect_failed', detail: `the copy to S3 was not confirmed: ${message}`, diskFull: false };
    }
  }
  const result = completeJob(db, clock, a.job.id, a.attemptId, assets, {
    instanceId: a.instance.row.id, instanceName: a.name, templateName: a.template.name, templateHash: a.template.hash,
    paramsJson: a.job.params_json, seed: a.job.seed,
  }, a.facts);
  registry.attemptEnded(a.instance.row.id, a.attemptId, 'ok', a.workflow ? checkpointOf(a.workflow) : null);
  a.deps.announce(result.changed);
  return null;
}

/**
 * A graceful stop cut this download short (its bounded wait was over): nothing is recorded — the
 * attempt stays open and the next start collects the outputs from the server's history.
 */
function leftForNextStart(a: AttemptScope): void {
  a.deps.registry.attemptEnded(a.instance.row.id, a.attemptId, 'ok', null);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : v === null || v === undefined ? null : String(v);
}
