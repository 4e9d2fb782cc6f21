/**
 * What a runner of any pool reports when its attempt ends, in the engine's words: the job's
 * verdict (completed with its outputs, failed with a classification, back in the queue, cancelled)
 * or nothing to record (detached: the attempt stays open for the next start). A runner says what
 * happened; conclude.ts decides what is written, the same way for every kind of workstation.
 */
import type { StoredAsset } from '../../store/asset-store.js';
import type { AssetContext } from '../../store/asset-store.js';

export type ErrorClass = 'permanent' | 'transient' | 'oom' | 'timeout';

export interface Classification {
  errorClass: ErrorClass;
  /** Words for the operator: what happened and where. */
  reason: string;
  /** Counts against the instance's health (quarantine after several in a row). */
  instanceLevel: boolean;
  /** The instance cannot run Shotfarm's prompts at all until someone fixes it: quarantined at once. */
  unfit?: boolean;
  nodeId: string | null;
  nodeType: string | null;
  exceptionType: string | null;
  /** An execution error's message and traceback as ComfyUI sent them (bounded), for the drawer. */
  exceptionMessage?: string | null;
  traceback?: string | null;
}

/** A classification with no node facts (a pool that does not see nodes: a cloud endpoint). */
export function classified(errorClass: ErrorClass, reason: string, instanceLevel = false): Classification {
  return { errorClass, reason, instanceLevel, nodeId: null, nodeType: null, exceptionType: null };
}

/** Why a runner is asked to stop early: the app closing, an operator's cancel, "stop farm". */
export type StopMode = 'detach' | 'cancel' | 'stopFarm';

/** How an attempt ended, as every pool reports it. */
export type Verdict =
  /** Nothing is recorded: the attempt stays open (the app is closing; the next start takes it up). */
  | { kind: 'none' }
  | { kind: 'completed'; assets: StoredAsset[]; ledger: AssetContext }
  | { kind: 'failed'; c: Classification }
  /** Back in the queue, uncounted: nothing rendered for it (never sent, displaced, the farm stopped). */
  | { kind: 'requeue'; reason: string }
  /** An operator cancelled the job (its state is recorded already): the attempt is closed. */
  | { kind: 'cancelled'; reason: string };
