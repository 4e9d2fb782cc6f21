/**
 * Job states and the one table of allowed transitions (SPEC §2).
 *
 * The engine's state module refuses any move not listed here, and the UI derives which action
 * buttons are enabled from `actionAllowed` — the rules live in exactly one place.
 */

export const JOB_STATES = [
  'pending',
  'queued',
  'running',
  'completed',
  'failed_retryable',
  'failed_final',
  'timeout_kill',
  'held',
  'cancelled',
] as const;

/** A job's lifecycle state. */
export type JobState = (typeof JOB_STATES)[number];

/** States from which a job never moves on by itself. */
export const TERMINAL_STATES: readonly JobState[] = ['completed', 'failed_final', 'timeout_kill', 'cancelled'];

/**
 * States of a job that has not started its current try and is not finished: it waits — for a
 * workstation (queued), its dependency (pending), a retry's backoff (failed_retryable) or an operator
 * (held). The engine explains each (`jobs.why`), the drawer shows that explanation, and bump and
 * move-to-top apply to exactly these.
 */
export const WAITING_STATES = ['pending', 'queued', 'failed_retryable', 'held'] as const satisfies readonly JobState[];

/** Not finished: rendering or waiting (the queue's default view, Active). */
export const OPEN_STATES: readonly JobState[] = ['running', ...WAITING_STATES];

/** States a job leaves only when someone acts: release, retry, a new take. */
export const NEEDS_OPERATOR_STATES: readonly JobState[] = ['held', 'failed_final', 'timeout_kill', 'cancelled'];

/** The farm's own work still to get through: open and not waiting for an operator (running included). */
export const BACKLOG_STATES: readonly JobState[] = OPEN_STATES.filter((s) => !NEEDS_OPERATOR_STATES.includes(s));

/**
 * Allowed transitions: from → the states it may move to. Anything else is a bug and throws.
 * - `running → queued` is the "lost/stop farm" requeue; `running → failed_retryable` a transient failure.
 * - `failed_final/timeout_kill/cancelled → queued` is an operator retry of the same take.
 * - `cancelled → pending/held` (and `→ queued`) is also the undo of a cancel: back where it was.
 */
export const TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  pending: ['queued', 'held', 'cancelled', 'failed_final'],
  queued: ['running', 'held', 'cancelled', 'failed_final', 'pending'],
  running: ['completed', 'failed_retryable', 'failed_final', 'timeout_kill', 'queued', 'cancelled'],
  completed: [],
  failed_retryable: ['queued', 'held', 'cancelled', 'failed_final'],
  failed_final: ['queued', 'cancelled'],
  timeout_kill: ['queued', 'cancelled'],
  held: ['queued', 'pending', 'cancelled'],
  cancelled: ['queued', 'pending', 'held'],
};

export function canTransition(from: JobState, to: JobState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Operator actions on jobs, as offered in the UI and the CLI. */
export const JOB_ACTIONS = ['bump', 'moveToTop', 'hold', 'release', 'cancel', 'retry', 'newTake', 'uncancel'] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/**
 * For each action, the states it applies to. Derived from TRANSITIONS where the action is a
 * transition; bump/moveToTop change order, not state, and apply to anything not yet started (waiting).
 */
export const ACTION_STATES: Readonly<Record<JobAction, readonly JobState[]>> = {
  bump: WAITING_STATES,
  moveToTop: WAITING_STATES,
  hold: (['pending', 'queued', 'failed_retryable'] as const).filter((s) => canTransition(s, 'held')),
  release: ['held'],
  cancel: (
    ['pending', 'queued', 'running', 'failed_retryable', 'held', 'failed_final', 'timeout_kill'] as const
  ).filter((s) => canTransition(s, 'cancelled')),
  retry: (['failed_final', 'timeout_kill', 'cancelled', 'failed_retryable'] as const).filter((s) =>
    canTransition(s, 'queued'),
  ),
  // A new take is a new job id: allowed whenever the current take is finished one way or another.
  newTake: ['completed', 'failed_final', 'timeout_kill', 'cancelled'],
  // Undo of a cancel; the engine also checks it was cancelled from a waiting state and not changed since.
  uncancel: ['cancelled'],
};

/** States a cancel can be undone from: no attempt was running, so going back loses and repeats nothing. */
export const UNCANCELLABLE_FROM: readonly JobState[] = (['pending', 'queued', 'held'] as const).filter((s) =>
  canTransition('cancelled', s),
);

/** Whether a job in `state` waits (WAITING_STATES): the drawer shows why. */
export function isWaiting(state: JobState): boolean {
  return (WAITING_STATES as readonly JobState[]).includes(state);
}

export function actionAllowed(action: JobAction, state: JobState): boolean {
  return ACTION_STATES[action].includes(state);
}
