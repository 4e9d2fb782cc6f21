/**
 * Which operator actions ask first, and what the question says: cancelling, retrying or making new
 * takes of more than a few jobs, or cancelling any running job, opens a dialog that says what will
 * happen ("Cancel 303 jobs: 4 are rendering now and will be interrupted") and names the running
 * renders. Hold, release, bump and move to top never ask: they can be undone. Pure, table-tested.
 */
import { isNextUp, type JobView } from '../../shared/domain.js';
import { UNCANCELLABLE_FROM, type JobAction } from '../../shared/job-states.js';

/** More jobs than this ask first ("more than a few"). */
export const ASK_ABOVE = 5;
/** Running renders named in the dialog; the rest are counted. */
const NAMED = 8;

export interface Confirmation {
  title: string;
  /** The one sentence that says what happens. */
  summary: string;
  /** Further lines: the renders that will be interrupted, what else is in the selection. */
  details: string[];
  confirmLabel: string;
  danger: boolean;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export function jobName(j: Pick<JobView, 'shot' | 'stage' | 'take'>): string {
  return `${j.shot} · ${j.stage} · take ${j.take}`;
}

/** "4 failed, 287 queued": the selection by state, largest first. */
function byState(jobs: readonly JobView[], words: Partial<Record<JobView['state'], string>>): string {
  const counts = new Map<string, number>();
  for (const j of jobs) {
    // A prompt sent ahead and not started is "next", not running.
    const w = isNextUp(j) ? 'next' : (words[j.state] ?? j.state);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([w, n]) => `${n.toLocaleString()} ${w}`)
    .join(', ');
}

const STATE_WORDS: Partial<Record<JobView['state'], string>> = {
  failed_final: 'failed',
  timeout_kill: 'timed out',
  failed_retryable: 'waiting to retry',
  pending: 'waiting for a dependency',
};

/** The renders `jobs` would interrupt, named with their workstation. */
export function runningLines(
  running: readonly JobView[],
  instanceName: (id: string | null) => string | null,
): string[] {
  const lines = running
    .slice(0, NAMED)
    .map((j) => `${jobName(j)}${instanceName(j.instanceId) ? ` on ${instanceName(j.instanceId)}` : ''}`);
  if (running.length > NAMED) lines.push(`…and ${plural(running.length - NAMED, 'more render')}`);
  return lines;
}

/**
 * The question to ask before `action` on `jobs` (the selected jobs it applies to), or null to go
 * ahead at once.
 */
export function confirmationFor(
  action: JobAction,
  jobs: readonly JobView[],
  instanceName: (id: string | null) => string | null,
): Confirmation | null {
  const running = jobs.filter((j) => j.state === 'running');
  if (jobs.length === 0) return null;
  if (action === 'cancel' && (running.length > 0 || jobs.length > ASK_ABOVE)) {
    const what = jobs.length === 1 ? jobName(jobs[0] as JobView) : plural(jobs.length, 'job');
    // A prompt waiting unstarted on its workstation (prefetch) is taken off, not interrupted.
    const next = running.filter(notStartedThere);
    const started = running.filter((j) => !notStartedThere(j));
    const offServer = next.length;
    const rendering = started.length;
    const off =
      offServer === 0
        ? ''
        : ` ${offServer === 1 ? '1 is' : `${offServer.toLocaleString()} are`} next on ${offServer === 1 ? 'a workstation' : 'workstations'}, not started, and will be taken off.`;
    const interrupt =
      rendering === 0
        ? `none is rendering now.${off}`
        : jobs.length === 1
          ? 'it is rendering now and will be interrupted.'
          : `${rendering === 1 ? '1 is' : `${rendering.toLocaleString()} are`} rendering now and will be interrupted.${off}`;
    const waiting = jobs.filter((j) => UNCANCELLABLE_FROM.includes(j.state));
    return {
      title: `Cancel ${what}?`,
      summary: `Cancel ${what}: ${interrupt}`,
      details: [
        ...(started.length ? ['Interrupted (this cannot be undone):', ...runningLines(started, instanceName)] : []),
        ...(next.length
          ? ['Next, not started (taken off, nothing interrupted):', ...runningLines(next, instanceName)]
          : []),
        ...(jobs.length > 1 ? [`Selected: ${byState(jobs, STATE_WORDS)}.`] : []),
        ...(waiting.length
          ? [
              `The ${plural(waiting.length, 'job')} that had not started can be un-cancelled from the notice that follows.`,
            ]
          : []),
      ],
      confirmLabel: `Cancel ${plural(jobs.length, 'job')}`,
      danger: true,
    };
  }
  if (action === 'retry' && jobs.length > ASK_ABOVE) {
    return {
      title: `Retry ${plural(jobs.length, 'job')}?`,
      summary: `Retry ${plural(jobs.length, 'job')}: each goes back to the queue with a fresh attempt budget and renders again.`,
      details: [`Selected: ${byState(jobs, STATE_WORDS)}.`],
      confirmLabel: `Retry ${plural(jobs.length, 'job')}`,
      danger: false,
    };
  }
  if (action === 'newTake' && jobs.length > ASK_ABOVE) {
    return {
      title: `Make ${plural(jobs.length, 'new take')}?`,
      summary: `Make ${plural(jobs.length, 'new take')}: ${plural(jobs.length, 'new job')} join the queue, each with a new seed unless its seed is pinned; the current takes stay as they are.`,
      details: [`From: ${byState(jobs, STATE_WORDS)}.`],
      confirmLabel: `Make ${plural(jobs.length, 'new take')}`,
      danger: false,
    };
  }
  return null;
}

/**
 * A running job whose prompt has not started on its workstation: claimed, or queued there behind
 * the running one (prefetch). Stopping or cancelling it interrupts no render — it is taken off.
 */
export function notStartedThere(j: Pick<JobView, 'state' | 'attempt'>): boolean {
  return isNextUp(j);
}

/** Stop farm always asks, and says what is rendering (`running`: the first of `total` running jobs). */
export function stopFarmConfirmation(
  running: readonly JobView[],
  total: number,
  instanceName: (id: string | null) => string | null,
): Confirmation {
  const n = Math.max(running.length, total);
  // What waits on a workstation unstarted is told apart only when every running job was seen.
  const waiting = n === running.length ? running.filter(notStartedThere).length : 0;
  const rendering = n - waiting;
  const what =
    waiting === 0
      ? `${n === 1 ? '1 prompt is' : `${n.toLocaleString()} prompts are`} rendering now and will be interrupted and put back in the queue.`
      : `${rendering === 0 ? 'nothing is rendering now' : `${plural(rendering, 'prompt')} ${rendering === 1 ? 'is' : 'are'} rendering now and will be interrupted`}; ` +
        `${plural(waiting, 'prompt')} waiting on ${waiting === 1 ? 'its workstation' : 'their workstations'} will be taken off; all go back in the queue.`;
  return {
    title: 'Stop the farm?',
    summary:
      n === 0
        ? 'Stop the farm: nothing is rendering now. No new prompts are sent until you resume it.'
        : `Stop the farm: ${what} No new prompts are sent until you resume it.`,
    details:
      waiting === 0
        ? [
            ...(running.length
              ? [
                  'Interrupted and requeued:',
                  ...runningLines(running, instanceName),
                  ...(n > running.length ? [`…of ${n.toLocaleString()} in all`] : []),
                ]
              : []),
            'To let running prompts finish instead, use Pause dispatch.',
          ]
        : [
            ...(rendering
              ? [
                  'Interrupted and requeued:',
                  ...runningLines(
                    running.filter((j) => !notStartedThere(j)),
                    instanceName,
                  ),
                ]
              : []),
            'Next, not started (taken off and requeued):',
            ...runningLines(running.filter(notStartedThere), instanceName),
            'To let running prompts finish instead, use Pause dispatch.',
          ],
    confirmLabel: 'Stop farm',
    danger: true,
  };
}
