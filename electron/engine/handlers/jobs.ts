/** The jobs domain: lists and lookups, the operator's actions, attempt history, failure groups. */
import type { ApiHandlers } from '../../../shared/api.js';
import type { JobView } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { bumpJobs, cancelJobs, holdJobs, moveJobsToTop, newTakes, releaseJobs, retryJobs, type ActionContext } from '../job-actions.js';
import { failureGroups, jobAttempts } from '../queries/attempts.js';
import { attemptsWithLive, withLive } from '../queries/job-live.js';
import { toJobView } from '../store/job-rows.js';
import { jobIdsByPrefix, jobRow, listJobIds, listJobs } from '../store/job-store.js';
import { changed, type DomainHandlers, type EngineContext } from './context.js';

/** A job named by its full id or a unique prefix of it (as `git` names commits). */
function resolveRef(ctx: EngineContext, ref: string): string {
  const prefix = ref.trim().toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(prefix)) throw new ShotfarmError('bad_input', `"${ref}" is not a job id (hex digits and dashes).`);
  const hits = jobIdsByPrefix(ctx.db, prefix);
  if (hits.length === 0) throw new ShotfarmError('not_found', `No job id starts with ${prefix}.`);
  if (hits.length > 1) throw new ShotfarmError('bad_input', `${prefix} matches several jobs; give more of the id.`);
  return hits[0] as string;
}

export function jobHandlers(ctx: EngineContext): DomainHandlers<'jobs'> & Pick<ApiHandlers, 'failures.list'> {
  const act = (): ActionContext => ({ db: ctx.db, clock: ctx.clock, random: ctx.random, actor: 'operator' });
  const live = () => ctx.farm()?.live ?? null;
  return {
    'jobs.list': async (i) => {
      const page = listJobs(ctx.db, i);
      return { ...page, rows: withLive(ctx.db, live(), page.rows) };
    },
    'jobs.get': async ({ id }) => {
      const r = jobRow(ctx.db, id);
      if (!r) throw new ShotfarmError('not_found', `Job ${id} does not exist.`);
      return withLive(ctx.db, live(), [toJobView(r)])[0] as JobView;
    },
    'jobs.ids': async ({ filter }) => listJobIds(ctx.db, filter),
    'jobs.resolveIds': async ({ refs }) => ({ ids: refs.map((ref) => resolveRef(ctx, ref)) }),
    'jobs.bump': async ({ ids, priority }) => changed(ctx, bumpJobs(act(), ids, priority)),
    'jobs.moveToTop': async ({ ids }) => changed(ctx, moveJobsToTop(act(), ids)),
    'jobs.hold': async ({ ids }) => changed(ctx, holdJobs(act(), ids)),
    'jobs.release': async ({ ids }) => changed(ctx, releaseJobs(act(), ids)),
    'jobs.cancel': async ({ ids }) => {
      const { ids: cancelled, wereRunning } = cancelJobs(act(), ids);
      ctx.farm()?.cancelled(wereRunning.map((r) => r.id));
      return changed(ctx, cancelled);
    },
    'jobs.retry': async ({ ids }) => changed(ctx, retryJobs(act(), ids)),
    'jobs.newTake': async ({ ids, pinSeed }) => changed(ctx, newTakes(act(), ids, pinSeed)),
    'jobs.attempts': async ({ id }) => attemptsWithLive(live(), jobAttempts(ctx.db, id)),
    'failures.list': async ({ limitPerGroup }) => failureGroups(ctx.db, limitPerGroup),
  };
}
