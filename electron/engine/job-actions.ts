/**
 * Operator actions on jobs (bump, move to top, hold/release, cancel, retry, new take). Which
 * states each applies to comes from the shared table (ACTION_STATES), the same one the UI uses to
 * enable its buttons. Jobs in other states are skipped; when none applies, the operator is told why.
 */
import { ShotfarmError } from '../../shared/errors.js';
import { actionAllowed, UNCANCELLABLE_FROM, type JobAction } from '../../shared/job-states.js';
import { PRIORITY_VALUE, type Priority } from '../../shared/priorities.js';
import type { Clock, RandomSource } from './clock.js';
import { jobId } from './ids.js';
import { drawSeed } from './intake/commit-import.js';
import type { SettingsReader } from './settings/setting-reader.js';
import { jobEvents, transitionJob } from './job-state.js';
import { inTransaction, type Db } from './store/database.js';
import type { JobRow } from './store/job-rows.js';
import { insertJob, jobRow, jobState, minRank, newestTake, rearmDependents, setOrder } from './store/job-store.js';

export interface ActionContext {
  db: Db;
  clock: Clock;
  random: RandomSource;
  actor: string;
  /** The farm settings (a new take's attempt budget is retry_attempts in force). */
  settings: SettingsReader;
}

function rowsFor(ctx: ActionContext, ids: readonly string[], action: JobAction): JobRow[] {
  const rows: JobRow[] = [];
  const skipped: string[] = [];
  for (const id of ids) {
    const r = jobRow(ctx.db, id);
    if (!r) throw new ShotfarmError('not_found', `Job ${id} does not exist.`);
    if (actionAllowed(action, r.state)) rows.push(r);
    else skipped.push(`${r.shot}/${r.stage} is ${r.state}`);
  }
  if (rows.length === 0) {
    throw new ShotfarmError(
      'conflict',
      `Nothing to ${action}: ${skipped.slice(0, 5).join('; ')}${skipped.length > 5 ? '…' : ''}.`,
    );
  }
  return rows;
}

export function bumpJobs(ctx: ActionContext, ids: readonly string[], priority: Priority): string[] {
  return inTransaction(ctx.db, () => {
    const now = ctx.clock.now();
    return rowsFor(ctx, ids, 'bump').map((r) => {
      setOrder(ctx.db, r.id, r, { priority: PRIORITY_VALUE[priority], rank: r.rank }, 'bump', now, ctx.actor);
      return r.id;
    });
  });
}

/** Puts the selection ahead of everything of its priority, keeping the selection's own order. */
export function moveJobsToTop(ctx: ActionContext, ids: readonly string[]): string[] {
  return inTransaction(ctx.db, () => {
    const now = ctx.clock.now();
    const rows = rowsFor(ctx, ids, 'moveToTop');
    const byPriority = new Map<number, JobRow[]>();
    for (const r of rows) byPriority.set(r.priority, [...(byPriority.get(r.priority) ?? []), r]);
    for (const [priority, group] of byPriority) {
      const top = minRank(ctx.db, priority);
      for (const [i, r] of group.entries())
        setOrder(ctx.db, r.id, r, { priority, rank: top - group.length + i }, 'top', now, ctx.actor);
    }
    return rows.map((r) => r.id);
  });
}

/** A job that depends on another waits (pending) until that one has completed. */
function waitsForDependency(ctx: ActionContext, r: JobRow): boolean {
  const dep = r.depends_on ? jobState(ctx.db, r.depends_on) : null;
  return dep !== null && dep !== 'completed';
}

export function holdJobs(ctx: ActionContext, ids: readonly string[]): string[] {
  return inTransaction(ctx.db, () =>
    rowsFor(ctx, ids, 'hold').map((r) => {
      transitionJob(ctx.db, ctx.clock, {
        jobId: r.id,
        to: 'held',
        reason: 'held by an operator',
        actor: ctx.actor,
        expectFrom: [r.state],
      });
      return r.id;
    }),
  );
}

export function releaseJobs(ctx: ActionContext, ids: readonly string[]): string[] {
  return inTransaction(ctx.db, () =>
    rowsFor(ctx, ids, 'release').map((r) => {
      const waiting = waitsForDependency(ctx, r);
      transitionJob(ctx.db, ctx.clock, {
        jobId: r.id,
        to: waiting ? 'pending' : 'queued',
        reason: waiting ? 'released; waiting for its dependency to complete' : 'released by an operator',
        actor: ctx.actor,
        expectFrom: ['held'],
      });
      return r.id;
    }),
  );
}

/**
 * Cancels jobs. A running job is marked cancelled here and its attempt is fenced off: the
 * scheduler interrupts the prompt on its server (`onCancelled`), and any late report from that
 * attempt is refused by the fencing check.
 */
export function cancelJobs(ctx: ActionContext, ids: readonly string[]): { ids: string[]; wereRunning: JobRow[] } {
  return inTransaction(ctx.db, () => {
    const wereRunning: JobRow[] = [];
    const changed = rowsFor(ctx, ids, 'cancel').map((r) => {
      if (r.state === 'running') wereRunning.push(r);
      transitionJob(ctx.db, ctx.clock, {
        jobId: r.id,
        to: 'cancelled',
        reason: 'cancelled by an operator',
        actor: ctx.actor,
        expectFrom: [r.state],
        attemptId: r.current_attempt_id,
        patch: { current_attempt_id: null, finished_at: ctx.clock.now(), not_before: null },
      });
      return r.id;
    });
    return { ids: changed, wereRunning };
  });
}

/**
 * Undoes cancels: each job goes back to the state it was cancelled from — only when that was a
 * waiting state (nothing was running, so nothing is lost or rendered twice) and the cancel is still
 * its latest change. A pending or queued job goes where its dependency now puts it. Jobs that do
 * not qualify are left alone; when none does, the operator is told why.
 */
export function uncancelJobs(ctx: ActionContext, ids: readonly string[]): string[] {
  return inTransaction(ctx.db, () => {
    const done: string[] = [];
    const refused: string[] = [];
    for (const r of rowsFor(ctx, ids, 'uncancel')) {
      const last = jobEvents(ctx.db, r.id, 1)[0];
      const from = last?.to_state === 'cancelled' ? last.from_state : null;
      if (!from || !UNCANCELLABLE_FROM.includes(from)) {
        refused.push(`${r.shot}/${r.stage} was ${from ? `${from} when it was cancelled` : 'changed after its cancel'}`);
        continue;
      }
      const to = from === 'held' ? 'held' : waitsForDependency(ctx, r) ? 'pending' : 'queued';
      transitionJob(ctx.db, ctx.clock, {
        jobId: r.id,
        to,
        reason: 'cancel undone by an operator',
        actor: ctx.actor,
        expectFrom: ['cancelled'],
        patch: { finished_at: null },
      });
      done.push(r.id);
    }
    if (done.length === 0) {
      throw new ShotfarmError(
        'conflict',
        `Nothing to uncancel: ${refused.slice(0, 5).join('; ')}${refused.length > 5 ? '…' : ''}.`,
      );
    }
    return done;
  });
}

/** Gives jobs back a priority and rank they had (the undo of a bump or a move to top). */
export function restoreOrder(
  ctx: ActionContext,
  order: readonly { id: string; priority: Priority; rank: number }[],
): string[] {
  return inTransaction(ctx.db, () => {
    const now = ctx.clock.now();
    const wanted = new Map(order.map((o) => [o.id, o]));
    return rowsFor(ctx, [...wanted.keys()], 'bump').map((r) => {
      const o = wanted.get(r.id) as { priority: Priority; rank: number };
      setOrder(ctx.db, r.id, r, { priority: PRIORITY_VALUE[o.priority], rank: o.rank }, 'undo', now, ctx.actor);
      return r.id;
    });
  });
}

/** Retries the same take with a fresh attempt budget (the operator has fixed what was wrong). */
export function retryJobs(ctx: ActionContext, ids: readonly string[]): string[] {
  return inTransaction(ctx.db, () =>
    rowsFor(ctx, ids, 'retry').map((r) => {
      transitionJob(ctx.db, ctx.clock, {
        jobId: r.id,
        to: 'queued',
        reason: 'retried by an operator',
        actor: ctx.actor,
        expectFrom: [r.state],
        patch: { attempts: 0, error_class: null, not_before: null, finished_at: null, enqueued_at: ctx.clock.now() },
      });
      return r.id;
    }),
  );
}

/**
 * Makes a new take of each job: a new job id with the same settings and, unless the seed is
 * pinned, a new seed (ComfyUI would otherwise serve the identical graph from its cache).
 */
export function newTakes(ctx: ActionContext, ids: readonly string[], pinSeed = false): string[] {
  return inTransaction(ctx.db, () =>
    rowsFor(ctx, ids, 'newTake').map((r) => {
      const take = (newestTake(ctx.db, r.project, r.episode, r.shot, r.stage)?.take ?? 0) + 1;
      const id = jobId({ project: r.project, episode: r.episode, shot: r.shot, stage: r.stage, take });
      const keepSeed = pinSeed || r.seed_pinned === 1 || r.seed === null;
      const waiting = waitsForDependency(ctx, r);
      const state = waiting ? 'pending' : 'queued';
      const now = ctx.clock.now();
      // The same settings as the take it follows (its priority and rank too), a new id and seed.
      const created = insertJob(
        ctx.db,
        ctx.clock,
        {
          id,
          shot_id: r.shot_id,
          project: r.project,
          episode: r.episode,
          shot: r.shot,
          stage: r.stage,
          take,
          template_id: r.template_id,
          template_name: r.template_name,
          params_json: r.params_json,
          inputs_json: r.inputs_json,
          seed: keepSeed ? r.seed : drawSeed(ctx.random),
          seed_pinned: r.seed_pinned,
          priority: r.priority,
          rank: r.rank,
          state,
          state_reason: waiting ? 'waiting for its dependency to complete' : null,
          max_attempts: ctx.settings.get('retry_attempts'),
          depends_on: r.depends_on,
          vram_gb: r.vram_gb,
          tags_json: r.tags_json,
          timeout_s: r.timeout_s,
          imported_by: r.imported_by,
          due_at: r.due_at,
          now,
        },
        { reason: `new take ${take} of take ${r.take}`, actor: ctx.actor },
      );
      if (!created) throw new ShotfarmError('conflict', `Take ${take} of ${r.shot}/${r.stage} exists already.`);
      rearmDependents(ctx.db, r.id, id, `waiting for ${r.stage} take ${take} to complete`, now);
      return id;
    }),
  );
}
