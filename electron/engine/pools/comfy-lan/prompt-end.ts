/**
 * When to ask the server whether a prompt has ended (comfyui-protocol.md §3 "History timing"). A
 * real server sends `execution_success` (or `_error`, `_interrupted`) a moment BEFORE it writes the
 * history entry; the `status` broadcast of the write and `executing {node: null}` come after it. So
 * the end message only says "soon" — a short fallback in case the frames after it are lost — and
 * the frames after the write say "now". A check that still finds the prompt in /queue after its end
 * asks again within milliseconds (END_RECHECK_MS), never only at the next poll. Pure.
 */
import type { FollowEvent } from '../../comfy/ws-events.js';

/** Re-asks after the end was seen and the entry was not there yet: 5, 10, 20 … 320 ms (≈ 0.6 s in all), then the poll. */
export const END_RECHECK_MS: readonly number[] = [5, 10, 20, 40, 80, 160, 320];

/** The wait before the n-th re-ask (0-based) once the end was seen. */
export function endRecheckDelay(n: number, pollMs: number): number {
  return Math.min(END_RECHECK_MS[n] ?? pollMs, pollMs);
}

/** What an event says about asking: now (the history entry should be there), soon (it is being written), or nothing. */
export type EndCue = 'now' | 'soon' | null;

export interface CueState {
  /** This execution's end message has been seen. */
  endSeen: boolean;
  /** The client id the prompt was posted with (null when adopted or recovered: its events go to a socket we do not have). */
  postedWith: string | null;
}

export function endCue(ev: FollowEvent, s: CueState): EndCue {
  if (ev.type === 'status') {
    // After our end: the broadcast of the history write. On a socket the prompt was not posted
    // with (recovered, adopted, reconnected), broadcasts are all that arrives: any queue change
    // may be our prompt leaving it.
    return s.endSeen || ev.clientId !== s.postedWith ? 'now' : null;
  }
  if (!('inRun' in ev) || !ev.inRun) return null;
  if (ev.type === 'executing' && ev.data.node === null) return 'now';
  if (ev.type === 'execution_success' || ev.type === 'execution_error' || ev.type === 'execution_interrupted')
    return 'soon';
  return null;
}

/** The end message of this execution (it says the prompt ended; the history entry follows). */
export function isEndMessage(ev: FollowEvent): boolean {
  return (
    'inRun' in ev &&
    ev.inRun &&
    (ev.type === 'execution_success' || ev.type === 'execution_error' || ev.type === 'execution_interrupted')
  );
}
