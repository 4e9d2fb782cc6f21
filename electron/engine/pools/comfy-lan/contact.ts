/**
 * When a running attempt counts as cut off from its workstation, and when it is given up. Pure
 * (table-tested): the contact watch feeds it times, the runner acts on its answer.
 */
import type { ComfyFailure } from '../../comfy/observation.js';
import type { AttemptObservation } from './failure.js';
import { heardSilentSince } from '../../loop-stall.js';

/**
 * A failed request that counts against contact: every failure but our own abort and an answer that
 * is not ComfyUI's (malformed, or over its size limit: the server did answer — it is not "lost
 * contact", and the attempt says what it answered). An HTTP 500 on /queue is an answer of sorts,
 * but not one an attempt can be followed by, so it counts — a server that only ever answers that
 * is given up after the grace time like a silent one.
 */
export function isSilence(f: ComfyFailure): boolean {
  return f.kind !== 'aborted' && f.kind !== 'malformed';
}

/**
 * The first failed request of a silent workstation: contact counts as lost since its last answer
 * (the attempt's start of following if it never answered since), and the attempt is given up a
 * grace time after the later of that answer and the start — a recovered attempt gets its full
 * grace even when the workstation last answered long before the restart.
 */
export function contactLoss(
  lastAnswerAt: number | null,
  followingSince: number,
  graceMs: number,
): { lostAt: number; requeueAt: number } {
  const lostAt = lastAnswerAt ?? followingSince;
  return { lostAt, requeueAt: Math.max(lostAt, followingSince) + graceMs };
}

/** How long to wait before asking again after a failed request: the poll interval, but never past the requeue time. */
export function nextAskAfterSilence(now: number, requeueAt: number, pollMs: number): number {
  return Math.max(0, Math.min(pollMs, requeueAt - now));
}

/**
 * An attempt's ask failed: given up now — at the contact mark's requeue time, or (should probes
 * keep clearing the mark while this execution cannot be read) a grace time of failed asks after
 * the first — with what to record; else how long until the next ask. A server that kept answering
 * with something unusable is not "lost": the attempt says what it answered.
 */
export function afterFailedAsk(o: {
  failure: ComfyFailure;
  route: string;
  loss: { lostAt: number; requeueAt: number } | null;
  failingSince: number;
  now: number;
  graceMs: number;
  pollMs: number;
  /** The end of the engine's own last stall (loop-stall.ts): asks that failed while it was not listening do not count. */
  listeningSince: number;
}): { giveUp: AttemptObservation } | { askInMs: number } {
  const due = o.loss?.requeueAt ?? heardSilentSince(o.failingSince, o.listeningSince) + o.graceMs;
  if (o.now < due) return { askInMs: nextAskAfterSilence(o.now, due, o.pollMs) };
  if (o.failure.kind === 'malformed') return { giveUp: { kind: 'transport', route: o.route, failure: o.failure } };
  return { giveUp: { kind: 'lost', seconds: Math.round((o.now - (o.loss?.lostAt ?? o.failingSince)) / 1000) } };
}
