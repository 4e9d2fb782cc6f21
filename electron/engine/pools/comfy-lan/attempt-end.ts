/**
 * How a LAN attempt ended (SPEC §4.5, §5), decided in one shape: each outcome is one case of
 * `decide`'s switch — collect a finished prompt's outputs for a completion with its ledger rows,
 * classify a failure, requeue, or take a stopped runner's prompt off the server first — into the
 * verdict every pool gives the engine (pools/attempt/conclude.ts records it, under the one rule for
 * storage faults, fenced reports and illegal transitions). Every case ends in the same tail: the
 * instance registry hears the result (slot, quarantine, the loaded model), `/free` after a failure,
 * and the job is announced once it is stored; a report the door fenced off still runs the tail.
 */
import { basename } from 'node:path';
import { ShotfarmError } from '../../../../shared/errors.js';
import { ComfyRequestError, settle } from '../../comfy/observation.js';
import type { HistoryEntry } from '../../comfy/responses.js';
import type { StoredAsset } from '../../store/asset-store.js';
import { conclude } from '../attempt/conclude.js';
import type { Verdict } from '../attempt/verdict.js';
import type { AttemptScope, Outcome } from './attempt-scope.js';
import { OutputTooLarge } from '../../files/output-file.js';
import { collectOutputs } from './collect.js';
import { classify, type AttemptObservation } from './failure.js';
import { interruptAndRemove } from './interrupt-prompt.js';
import { checkpointOf } from '../../templates/checkpoint.js';
import { terminalMessage } from './prompt-watch.js';
import { readServerLog } from './server-log.js';
import { tracebackText } from './error-detail.js';
import { storageFaultOf } from '../attempt/storage-hold.js';

/** The LAN's decision: the verdict the engine records (pools/attempt/conclude.ts), and what the tail does then. */
interface Decision {
  verdict: Verdict;
  result: 'ok' | 'job_failure' | 'instance_failure' | 'instance_unfit';
  /** Ask the server to unload models (after a failure or a prompt taken off). */
  free: boolean;
  /** The model this attempt left loaded (a completed one only). */
  checkpoint?: string | null;
  /** A node raised on the server: once the outcome is stored, keep the server's log of it (server-log.ts). */
  readLog?: boolean;
}

/** A report refused by the fence, or a failure to record: nothing of this attempt was stored. */
const NOTHING = {
  result: 'job_failure',
  free: false,
  changed: [] as readonly string[],
  checkpoint: null,
  readLog: false,
} as const;

export async function concludeAttempt(a: AttemptScope, outcome: Outcome): Promise<void> {
  // A full or unwritable disk, a locked database is thrown: not this attempt's end — the runner holds
  // the farm and takes the attempt up again (its result is safe on the server meanwhile).
  const end =
    (await conclude(a.deps, { jobId: a.job.id, attemptId: a.attemptId, facts: a.facts }, () => decide(a, outcome))) ??
    NOTHING;
  a.deps.registry.attemptEnded(a.instance.row.id, a.attemptId, end.result, end.checkpoint ?? null);
  if (end.free) void settle(() => a.client.free({ unloadModels: true }));
  if (end.changed.length) a.deps.announce(end.changed);
  // After the outcome is stored and announced, never before nor instead: an addition to the row.
  if (end.readLog && end.changed.length) void readServerLog(a);
}

async function decide(a: AttemptScope, outcome: Outcome): Promise<Decision> {
  switch (outcome.kind) {
    case 'detached':
      return { verdict: { kind: 'none' }, result: 'ok', free: false };
    case 'cancelled':
      await interruptAndRemove(a);
      return { verdict: { kind: 'cancelled', reason: 'cancelled by an operator' }, result: 'job_failure', free: true };
    case 'stopped':
      await interruptAndRemove(a);
      return {
        verdict: { kind: 'requeue', reason: 'farm stopped; back in the queue' },
        result: 'job_failure',
        free: true,
      };
    case 'displaced':
    case 'requeue':
      return { verdict: { kind: 'requeue', reason: outcome.reason }, result: 'ok', free: false };
    case 'failed':
      return fail(a, outcome.obs);
    case 'finished': {
      const failed = observationOf(outcome.entry, a.interruptRequested);
      if (failed) return fail(a, failed);
      const got = await collect(a, outcome.entry);
      if (!got.ok) {
        // A graceful stop cut this download short (its bounded wait was over): nothing is recorded —
        // the attempt stays open and the next start collects the outputs from the server's history.
        if (a.stopMode === 'detach') return { verdict: { kind: 'none' }, result: 'ok', free: false };
        return fail(a, got.obs);
      }
      const ledger = {
        instanceId: a.instance.row.id,
        instanceName: a.name,
        templateName: a.template.name,
        templateHash: a.template.hash,
        paramsJson: a.job.params_json,
        seed: a.job.seed,
      };
      return {
        verdict: { kind: 'completed', assets: got.assets, ledger },
        result: 'ok',
        free: false,
        checkpoint: a.workflow ? checkpointOf(a.workflow) : null,
      };
    }
  }
}

function fail(a: AttemptScope, obs: AttemptObservation): Decision {
  const c = classify(obs, a.name);
  return {
    verdict: { kind: 'failed', c },
    result: c.unfit ? 'instance_unfit' : c.instanceLevel ? 'instance_failure' : 'job_failure',
    free: true,
    readLog: obs.kind === 'execution_error',
  };
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
    kind: 'execution_error',
    nodeId: str(d.node_id),
    nodeType: str(d.node_type),
    exceptionType: str(d.exception_type) ?? 'unknown',
    exceptionMessage: str(d.exception_message) ?? 'no message',
    traceback: tracebackText(d.traceback),
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
    assets = await collectOutputs(
      a.client,
      entry,
      config.outputRoot,
      a.job,
      {
        maxBytes: config.outputMaxBytes,
        deadlineMs: Math.max(config.downloadMinMs, a.job.timeout_s * 1000),
        ...(a.deps.outputFs ? { fs: a.deps.outputFs } : {}),
      },
      a.signal,
    );
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
      for (const asset of assets)
        await uploader.upload(asset.path, uploader.keyFor(a.job, basename(asset.path)), asset.sha256);
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
