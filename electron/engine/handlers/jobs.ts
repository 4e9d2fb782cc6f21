/**
 * The jobs domain: lists and lookups (with why each job waits), the operator's actions, attempt
 * history, failure groups.
 */
import { vramWords } from '../views/vram-words.js';
import type { ApiHandlers } from '../../../shared/api.js';
import type { JobView } from '../../../shared/domain.js';
import { actorName, type Caller } from '../../../shared/people.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import {
  bumpJobs,
  cancelJobs,
  holdJobs,
  moveJobsToTop,
  newTakes,
  releaseJobs,
  restoreOrder,
  retryJobs,
  uncancelJobs,
  type ActionContext,
} from '../job-actions.js';
import { failureGroups, jobAttempts } from '../queries/attempts.js';
import { jobDetail } from '../queries/job-detail.js';
import { attemptsWithLive } from '../queries/job-live.js';
import { jobPreview } from '../queries/job-preview.js';
import { jobWhy } from '../views/job-why.js';
import { explainer } from '../views/wait-explainer.js';
import type { JobRow } from '../store/job-rows.js';
import { jobFacets, jobIdsByPrefix, jobRow, jobRows, listJobIds, listJobRows } from '../store/job-store.js';
import { currentFarmFacts } from '../views/job-views.js';
import { changed, type DomainHandlers, type EngineContext } from './context.js';
import { authorizeCreatedRush } from '../auth/authorize.js';

/** A job named by its full id or a unique prefix of it (as `git` names commits). */
function resolveRef(ctx: EngineContext, ref: string): string {
  const prefix = ref.trim().toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(prefix))
    throw new ShotfarmError('bad_input', `"${ref}" is not a job id (hex digits and dashes).`);
  const hits = jobIdsByPrefix(ctx.db, prefix);
  if (hits.length === 0) throw new ShotfarmError('not_found', `No job id starts with ${prefix}.`);
  if (hits.length > 1) throw new ShotfarmError('bad_input', `${prefix} matches several jobs; give more of the id.`);
  return hits[0] as string;
}

export function jobHandlers(ctx: EngineContext): DomainHandlers<'jobs'> & Pick<ApiHandlers, 'failures.list'> {
  // Who did it goes in the event rows and jobs.last_action_by: the person, or `local` (the solo operator).
  const act = (caller: Caller): ActionContext => ({
    db: ctx.db,
    clock: ctx.clock,
    random: ctx.random,
    actor: actorName(caller),
    settings: ctx.settings,
  });
  const live = () => ctx.farm()?.live ?? null;
  // Every view this domain answers with is built as the announcer builds it (views/job-views.ts).
  const views = ctx.views;
  const existing = (id: string): JobRow => {
    const r = jobRow(ctx.db, id);
    if (!r) throw new ShotfarmError('not_found', `Job ${id} does not exist.`);
    return r;
  };
  return {
    'jobs.list': async (i) => {
      const { rows, total } = listJobRows(ctx.db, i);
      return { rows: views(rows), total };
    },
    'jobs.get': async ({ id }) => views([existing(id)])[0] as JobView,
    'jobs.why': async ({ id }) => {
      const facts = currentFarmFacts(ctx);
      const row = existing(id);
      return {
        ...jobWhy(ctx.db, row, facts, explainer(facts, ctx.templates)),
        vram: vramWords(row, facts, ctx.templates),
      };
    },
    'jobs.ids': async ({ filter }) => listJobIds(ctx.db, filter),
    'jobs.resolveIds': async ({ refs }) => ({ ids: refs.map((ref) => resolveRef(ctx, ref)) }),
    'jobs.bump': async ({ ids, priority }, c) => changed(ctx, bumpJobs(act(c), ids, priority)),
    'jobs.moveToTop': async ({ ids }, c) => changed(ctx, moveJobsToTop(act(c), ids)),
    'jobs.hold': async ({ ids }, c) => changed(ctx, holdJobs(act(c), ids)),
    'jobs.release': async ({ ids }, c) => changed(ctx, releaseJobs(act(c), ids)),
    'jobs.cancel': async ({ ids }, c) => {
      const { ids: cancelled, wereRunning } = cancelJobs(act(c), ids);
      ctx.farm()?.cancelled(wereRunning.map((r) => r.id));
      return changed(ctx, cancelled);
    },
    'jobs.retry': async ({ ids }, c) => changed(ctx, retryJobs(act(c), ids)),
    'jobs.newTake': async ({ ids, pinSeed }, c) => {
      // A new take keeps its job's priority: a role without the rush class may not make a rush one.
      authorizeCreatedRush(c, () => jobRows(ctx.db, ids).some((r) => r.priority >= PRIORITY_VALUE.rush));
      return changed(ctx, newTakes(act(c), ids, pinSeed));
    },
    'jobs.uncancel': async ({ ids }, c) => changed(ctx, uncancelJobs(act(c), ids)),
    'jobs.restoreOrder': async ({ jobs }, c) => changed(ctx, restoreOrder(act(c), jobs)),
    'jobs.attempts': async ({ id }) => attemptsWithLive(live(), jobAttempts(ctx.db, id)),
    'jobs.detail': async ({ id }) => jobDetail(ctx.db, id),
    'jobs.preview': async ({ id, since }) => jobPreview(existing(id), ctx.farm()?.watch ?? null, since),
    'jobs.facets': async ({ by, filter, prefix, limit }) => ({
      by,
      ...jobFacets(ctx.db, by, filter, prefix, limit ?? 200),
    }),
    'failures.list': async ({ limitPerGroup }) => failureGroups(ctx.db, limitPerGroup),
  };
}
