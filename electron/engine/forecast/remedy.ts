/**
 * What would make a late group on time, in words: "2 more GPUs or a bump would make it". The GPU
 * count is arithmetic (its share of slots scaled by how far past the due time it ends); the bump is
 * a what-if simulation with the group's waiting jobs at the top of their class. Pure.
 */
import type { ForecastGroup } from '../../../shared/forecast.js';
import { sequenceOf } from '../../../shared/job-detail.js';
import type { UnfinishedJob } from './forecast-groups.js';
import { simulate, type SimInput } from './simulate.js';

function inGroup(g: ForecastGroup, r: UnfinishedJob): boolean {
  if (r.project !== g.project) return false;
  if (g.episode !== null && r.episode !== g.episode) return false;
  return g.sequence === null || (r.sequence ?? sequenceOf(r.shot)) === g.sequence;
}

/** `waiting`: the simulation's units (input.jobs by id), each a job or a bucket of `n`. */
export function remedyFor(
  g: ForecastGroup,
  input: SimInput,
  waiting: readonly UnfinishedJob[],
  slots: number,
  tryBump: boolean,
): string | null {
  if (g.dueAt === null || g.p50At === null || g.p90At === null) return null;
  if (g.dueAt <= input.now) return 'its due time has passed';
  const mine = waiting.filter((r) => inGroup(g, r));
  const ids = new Set(mine.map((r) => r.id));
  const jobs = mine.reduce((a, r) => a + (r.n ?? 1), 0);
  let bumpMakesIt = false;
  if (tryBump && ids.size > 0) {
    const bumped = input.jobs.map((j) =>
      ids.has(j.id) ? { ...j, priority: j.priority + 99 - (j.priority % 100), rank: -1 } : j,
    );
    const ends = simulate({ ...input, jobs: bumped });
    let p90 = 0;
    for (const id of ids) p90 = Math.max(p90, ends.get(id)?.p90 ?? Number.POSITIVE_INFINITY);
    bumpMakesIt = p90 <= g.dueAt;
  }
  // The slots it uses now, stretched so its work fits before the due time (its p90 end).
  const stretch = (g.p90At - input.now) / (g.dueAt - input.now);
  const used = Math.max(1, Math.min(slots, jobs));
  const more = Math.max(1, Math.ceil(used * stretch - used));
  const gpus = `${more} more GPU${more === 1 ? '' : 's'}`;
  return bumpMakesIt ? `${gpus} or a bump would make it` : `${gpus} would make it`;
}
