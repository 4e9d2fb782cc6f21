/**
 * Does a job the page holds match the queue's filter? The same rules as the engine's SQL
 * (electron/engine/store/job-filter.ts; a test holds the two to each other): exact names, prefixes
 * and the free-text search ignoring ASCII case as SQLite's LIKE does. The selection uses it to drop
 * the jobs a filter hides. DOM-free.
 */
import type { JobFilter } from '../../shared/api.js';
import type { JobView } from '../../shared/domain.js';

/** LIKE folds only A–Z. */
function fold(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

export function matchesFilter(j: JobView, f: JobFilter): boolean {
  if (f.states?.length && !f.states.includes(j.state)) return false;
  if (f.project && j.project !== f.project) return false;
  if (f.episode && j.episode !== f.episode) return false;
  if (f.shot && j.shot !== f.shot) return false;
  if (f.stage && j.stage !== f.stage) return false;
  if (f.sequence && !j.shot.startsWith(`${f.sequence}_`)) return false;
  if (f.projectPrefix && !fold(j.project).startsWith(fold(f.projectPrefix))) return false;
  if (f.episodePrefix && !fold(j.episode).startsWith(fold(f.episodePrefix))) return false;
  if (f.shotPrefix && !fold(j.shot).startsWith(fold(f.shotPrefix))) return false;
  if (f.instanceId && j.instanceId !== f.instanceId) return false;
  if (f.priority && j.priority !== f.priority) return false;
  if (f.importedBy && j.importedBy !== f.importedBy) return false;
  if (f.blocked !== undefined && j.blocked !== f.blocked) return false;
  if (f.search) {
    const q = fold(f.search);
    if (![j.shot, j.stage, j.template, j.episode, j.stateReason ?? '', j.id].some((v) => fold(v).includes(q)))
      return false;
  }
  return true;
}
