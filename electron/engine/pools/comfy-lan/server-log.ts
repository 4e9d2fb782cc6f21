/**
 * After a LAN attempt failed with an execution error and its outcome is stored: read the server's own
 * log once (`GET /internal/logs/raw`, protocol §15) and keep the lines of the attempt's window with it,
 * for the drawer. An addition, never part of the outcome: it runs after the outcome is written, is
 * bounded in time and size, and whatever happens here (no route, no answer, a closed store) changes
 * nothing of the attempt but this one column. A RunPod endpoint has no such log (not read there).
 */
import type { ServerLog } from '../../../../shared/server-log.js';
import { describeFailure, settle } from '../../comfy/observation.js';
import { windowLog } from '../../comfy/log-lines.js';
import { attemptTimes, keepServerLog } from '../../store/attempt-store.js';
import type { AttemptScope } from './attempt-scope.js';

/** Seconds of log kept before the attempt started and after it ended. */
export const SERVER_LOG_MARGIN_MS = 5_000;
/** The wait before reading: lines ComfyUI prints just after the failure ("Prompt executed in …"). */
export const SERVER_LOG_SETTLE_MS = 1_000;
/** The longest the read may take; then nothing is kept but the word that it did not answer. */
export const SERVER_LOG_TIMEOUT_MS = 3_000;

/** Reads and keeps the server's log of an ended attempt; never throws. */
export async function readServerLog(a: AttemptScope): Promise<void> {
  const { db, clock, timers, batch, log } = a.deps;
  try {
    await new Promise<void>((resolve) => timers.setTimeout(resolve, SERVER_LOG_SETTLE_MS));
    const times = attemptTimes(db, a.attemptId);
    if (!times || times.finished_at === null) return;
    const from = Math.max(0, (times.started_at ?? times.dispatched_at) - SERVER_LOG_MARGIN_MS);
    const to = times.finished_at + SERVER_LOG_MARGIN_MS;
    const got = await settle(() => a.client.getRawLogs({ timeoutMs: SERVER_LOG_TIMEOUT_MS }));
    const serverLog: ServerLog = !got.ok
      ? { kind: 'unread', detail: short(`GET /internal/logs/raw: ${describeFailure(got.failure)}`) }
      : !got.value.ok
        ? {
            kind: 'not_offered',
            detail: `GET /internal/logs/raw answered ${got.value.status}: ${
              got.value.status === 404 || got.value.status === 405
                ? 'an older ComfyUI, or a proxy that does not pass /internal/'
                : 'the route failed on that server'
            }`,
          }
        : windowLog(got.value.entries, got.value.date, clock.now(), from, to);
    await batch.add(() => keepServerLog(db, a.attemptId, JSON.stringify(serverLog)));
  } catch (err) {
    // A closed or failing store (the app is closing): the attempt's outcome is stored; its log is not.
    log(`attempt ${a.attemptId} on ${a.name}: the server's log was not kept: ${(err as Error).message}`);
  }
}

function short(text: string): string {
  return text.length <= 500 ? text : `${text.slice(0, 499)}…`;
}
