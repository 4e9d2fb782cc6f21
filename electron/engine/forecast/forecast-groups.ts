/**
 * Folds the simulated job ends (simulate.ts) and the episodes' counts into the forecast's groups —
 * project, episode, sequence — each with its range, its due time and whether it is late. Pure.
 */
import type { ForecastGroup } from '../../../shared/forecast.js';
import { sequenceOf } from '../../../shared/job-detail.js';
import type { JobState } from '../../../shared/job-states.js';
import type { SimEnd } from './simulate.js';

export interface UnfinishedJob {
  id: string;
  project: string;
  episode: string;
  shot: string;
  state: JobState;
  /** Like jobs this stands for (a bucket of a deep backlog; 1 when absent), and their sequence ('' for none) when no one shot says it. */
  n?: number;
  sequence?: string;
}

export interface EpisodeCount {
  project: string;
  episode: string;
  /** '' when the shot codes carry no sequence. */
  sequence: string;
  state: JobState;
  n: number;
  lastFinished: number | null;
  firstDue: number | null;
}

const SEP = '/';

export function groupKeyOf(
  kind: ForecastGroup['kind'],
  project: string,
  episode: string | null,
  sequence: string | null,
): string {
  if (kind === 'project') return project;
  if (kind === 'episode') return `${project}${SEP}${episode}`;
  return `${project}${SEP}${episode}${SEP}${sequence}`;
}

function blank(
  kind: ForecastGroup['kind'],
  project: string,
  episode: string | null,
  sequence: string | null,
): ForecastGroup {
  return {
    kind,
    key: groupKeyOf(kind, project, episode, sequence),
    project,
    episode,
    sequence,
    total: 0,
    done: 0,
    running: 0,
    queued: 0,
    other: 0,
    p50At: null,
    p90At: null,
    dueAt: null,
    late: false,
    remedy: null,
    unplaced: 0,
  };
}

const later = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));
const earlier = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/** The groups of every episode with work left, sorted by project, episode, sequence. */
export function buildGroups(
  counts: readonly EpisodeCount[],
  unfinished: readonly UnfinishedJob[],
  ends: ReadonlyMap<string, SimEnd>,
): ForecastGroup[] {
  const groups = new Map<string, ForecastGroup>();
  const lastDone = new Map<string, number | null>();
  const touch = (c: { project: string; episode: string; sequence: string }): ForecastGroup[] => {
    const out: ForecastGroup[] = [];
    const kinds: [ForecastGroup['kind'], string | null, string | null][] = [
      ['project', null, null],
      ['episode', c.episode, null],
    ];
    if (c.sequence) kinds.push(['sequence', c.episode, c.sequence]);
    for (const [kind, ep, seq] of kinds) {
      const key = groupKeyOf(kind, c.project, ep, seq);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = blank(kind, c.project, ep, seq)));
      out.push(g);
    }
    return out;
  };
  for (const c of counts) {
    for (const g of touch(c)) {
      g.total += c.n;
      if (c.state === 'completed') {
        g.done += c.n;
        lastDone.set(g.key, later(lastDone.get(g.key) ?? null, c.lastFinished));
      } else if (c.state === 'running') g.running += c.n;
      else if (c.state === 'queued' || c.state === 'pending' || c.state === 'failed_retryable') g.queued += c.n;
      else g.other += c.n;
      g.dueAt = earlier(g.dueAt, c.firstDue);
    }
  }
  const left = new Map<string, number>();
  for (const j of unfinished) {
    const e = ends.get(j.id);
    const n = j.n ?? 1;
    for (const g of touch({
      project: j.project,
      episode: j.episode,
      sequence: j.sequence ?? sequenceOf(j.shot) ?? '',
    })) {
      left.set(g.key, (left.get(g.key) ?? 0) + n);
      if (!e) g.unplaced += n;
      else {
        g.p50At = later(g.p50At, e.p50);
        g.p90At = later(g.p90At, e.p90);
      }
    }
  }
  for (const g of groups.values()) {
    // Nothing left to run: it is done, at its last finish.
    if (!left.get(g.key)) {
      g.p50At = lastDone.get(g.key) ?? null;
      g.p90At = g.p50At;
    }
    g.late = g.dueAt !== null && ((g.p90At !== null && g.p90At > g.dueAt) || (g.unplaced > 0 && g.p90At === null));
  }
  return [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
