/**
 * The queue's ready-made views, by the states they show: Active (everything not finished — running,
 * next up, blocked, waiting for a dependency, retrying, held) is the default, so Done rows never
 * bury the running ones; Done, Failed, Cancelled and All are one click away. DOM-free.
 */
import { OPEN_STATES, type JobState } from '../../shared/job-states.js';

export interface QueuePreset {
  id: 'active' | 'done' | 'failed' | 'cancelled' | 'all';
  label: string;
  states: readonly JobState[];
  title: string;
}

export const QUEUE_PRESETS: readonly QueuePreset[] = [
  {
    id: 'active',
    label: 'Active',
    states: OPEN_STATES,
    title: 'Running, next up, blocked, waiting for a dependency, retrying, held',
  },
  { id: 'done', label: 'Done', states: ['completed'], title: 'Completed' },
  { id: 'failed', label: 'Failed', states: ['failed_final', 'timeout_kill'], title: 'Failed for good or timed out' },
  { id: 'cancelled', label: 'Cancelled', states: ['cancelled'], title: 'Cancelled' },
  { id: 'all', label: 'All', states: [], title: 'Every job' },
];

export const DEFAULT_STATES: readonly JobState[] = QUEUE_PRESETS[0]?.states ?? [];

/** The preset whose states these are (in any order), or null for a hand-picked set. */
export function presetOf(states: readonly JobState[] | undefined): QueuePreset | null {
  const have = [...(states ?? [])].sort().join();
  return QUEUE_PRESETS.find((p) => [...p.states].sort().join() === have) ?? null;
}

/** How many jobs these states hold (no states: every job), from the farm's counts by state. */
function countIn(states: readonly JobState[] | undefined, byState: Readonly<Record<JobState, number>>): number {
  const of = states?.length ? states : (Object.keys(byState) as JobState[]);
  return of.reduce((n, s) => n + (byState[s] ?? 0), 0);
}

/** How many jobs a preset shows, from the farm's counts by state. */
export function presetCount(p: QueuePreset, byState: Readonly<Record<JobState, number>>): number {
  return countIn(p.states, byState);
}

/** Whether a filter narrows the queue beyond its states (a search, a project, a priority…), so an empty list is the filter's doing. */
export function narrowsBeyondStates(filter: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(filter).some(([k, v]) => k !== 'states' && v !== undefined && v !== '' && v !== false);
}

/**
 * What an empty queue says, from the farm's counts: "Nothing is waiting or rendering" only when
 * that is true; when a search or a filter hides the preset's jobs, it says how many it hides.
 */
export function emptyQueueWords(
  filter: Readonly<{ states?: readonly JobState[] } & Record<string, unknown>>,
  byState: Readonly<Record<JobState, number>>,
): { title: string; detail: string; hidden: number } {
  const all = countIn([], byState);
  const preset = presetOf(filter.states);
  // What the view's states hold: its preset's count when it is one.
  const inStates = preset ? presetCount(preset, byState) : countIn(filter.states, byState);
  const jobs = (n: number) => `${n.toLocaleString()} job${n === 1 ? '' : 's'}`;
  if (narrowsBeyondStates(filter) && inStates > 0) {
    const where = preset && preset.id !== 'all' ? ` in ${preset.label}` : '';
    return {
      title: 'No jobs match',
      detail: `${jobs(inStates)}${where}; the search or filters hide them all.`,
      hidden: inStates,
    };
  }
  if (preset?.id === 'active')
    return {
      title: 'Nothing is waiting or rendering',
      detail: `${jobs(all)} on this farm; none in this view.`,
      hidden: 0,
    };
  return { title: 'No jobs match', detail: `${jobs(all)} on this farm; none in this view.`, hidden: 0 };
}

/**
 * Whether an empty list may be older than the farm's counts: events said the list changed and its
 * new answer is not here yet (`pending`), and the counts say the view should have rows — or still
 * say the farm is empty while the events prove it is not. Then the table says it is loading, not
 * that nothing is there. A view emptied by a search stays empty without flicker while others change.
 */
export function emptyMayBeStale(
  filter: Readonly<{ states?: readonly JobState[] } & Record<string, unknown>>,
  byState: Readonly<Record<JobState, number>> | null,
  pending: boolean,
): boolean {
  if (!pending) return false;
  if (!byState || Object.values(byState).every((n) => n === 0)) return true;
  if (narrowsBeyondStates(filter)) return false;
  const states = filter.states?.length ? filter.states : (Object.keys(byState) as JobState[]);
  return states.some((s) => (byState[s] ?? 0) > 0);
}
