/**
 * Stores the valid rows of a preview in ONE transaction: the projects, episodes and shots they
 * name, and a job per row with its creation event. Rows whose job id already exists are counted
 * as duplicates and change nothing, so importing the same list twice adds nothing.
 */
import type { ImportResult } from '../../../shared/domain.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Clock, RandomSource } from '../clock.js';
import { inTransaction, type Db } from '../store/database.js';
import { insertJobs, type NewJob, newestTake } from '../store/job-store.js';
import { ShotIds } from '../store/shot-store.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import type { CheckedRow } from './preview.js';

const stageKey = (...parts: string[]): string => parts.join('\u001f');

/** Draws a seed in ComfyUI's usual range that stays a safe integer in JS and SQLite. */
export function drawSeed(random: RandomSource): number {
  return Math.floor(random() * 2 ** 48);
}

/** What a row's dependency is looked up in, built only when some row of the file waits for a stage. */
interface DependencyIndex {
  /**
   * A valid row's job id by its take key: a dependency on the same take in this file is looked up
   * here rather than hashed again (jobId is a SHA-1 per call; the preview hashed every row once).
   */
  byTake: Map<string, string>;
  /** The newest take of each stage in this file. */
  newest: Map<string, { id: string; take: number }>;
}

function dependencyIndex(valid: readonly CheckedRow[]): DependencyIndex {
  const byTake = new Map<string, string>();
  const newest = new Map<string, { id: string; take: number }>();
  for (const r of valid) {
    const s = r.source;
    byTake.set(stageKey(s.project, s.episode, s.shot, s.stage, String(s.take)), r.view.jobId!);
    const key = stageKey(s.project, s.episode, s.shot, s.stage);
    const cur = newest.get(key);
    if (!cur || cur.take < s.take) newest.set(key, { id: r.view.jobId!, take: s.take });
  }
  return { byTake, newest };
}

export function commitRows(
  db: Db,
  clock: Clock,
  random: RandomSource,
  settings: SettingsReader,
  rows: CheckedRow[],
  actor = 'local',
): ImportResult {
  const valid = rows.filter((r) => r.view.status !== 'error' && r.view.jobId && r.template);
  const rejected = rows.length - valid.length;
  const deps = valid.some((r) => r.source.dependsOn) ? dependencyIndex(valid) : null;
  return inTransaction(db, () => {
    const now = clock.now();
    // The attempt budget in force now (a later change of the setting updates unfinished jobs).
    const maxAttempts = settings.get('retry_attempts');
    const shotIds = new ShotIds(db, now).idsOf(valid.map((r) => r.source));
    const storedNewest = new Map<string, { id: string; take: number } | null>();
    // A template's tags as stored, written once per template rather than once per row.
    const tagsJson = new Map<NonNullable<CheckedRow['template']>, string>();
    const jobs: NewJob[] = [];
    for (let i = 0; i < valid.length; i++) {
      const r = valid[i] as CheckedRow;
      const s = r.source;
      const t = r.template!;

      let dependsOn: string | null = null;
      let dependsLabel = '';
      if (s.dependsOn && deps) {
        // Same take of the stage in this file first, else the newest stored take.
        const sibling = deps.byTake.get(stageKey(s.project, s.episode, s.shot, s.dependsOn, String(s.take)));
        const key = stageKey(s.project, s.episode, s.shot, s.dependsOn);
        const newest = deps.newest.get(key);
        if (sibling !== undefined) {
          dependsOn = sibling;
          dependsLabel = `${s.dependsOn} take ${s.take}`;
        } else if (newest) {
          dependsOn = newest.id;
          dependsLabel = `${s.dependsOn} take ${newest.take}`;
        } else {
          if (!storedNewest.has(key)) storedNewest.set(key, newestTake(db, s.project, s.episode, s.shot, s.dependsOn));
          const stored = storedNewest.get(key);
          if (!stored) throw new Error(`row ${s.row}: stage ${s.dependsOn} vanished between preview and import`);
          dependsOn = stored.id;
          dependsLabel = `${s.dependsOn} take ${stored.take}`;
        }
      }

      const explicitSeed = s.seed ?? (typeof r.parameters.seed === 'number' ? r.parameters.seed : null);
      const seed = explicitSeed ?? ('seed' in t.parameters ? drawSeed(random) : null);
      const state = dependsOn ? 'pending' : 'queued';
      const reason = dependsOn ? `waiting for ${dependsLabel} to complete` : 'imported';
      const id = r.view.jobId!;
      let tags = tagsJson.get(t);
      if (tags === undefined) tagsJson.set(t, (tags = JSON.stringify(t.tags)));
      jobs.push({
        id,
        shot_id: shotIds[i] as number,
        project: s.project,
        episode: s.episode,
        shot: s.shot,
        stage: s.stage,
        take: s.take,
        template_id: t.id,
        template_name: t.name,
        params_json: JSON.stringify(r.parameters),
        inputs_json: JSON.stringify(r.inputs),
        seed,
        seed_pinned: explicitSeed !== null ? 1 : 0,
        priority: PRIORITY_VALUE[s.priority],
        rank: 0,
        state,
        state_reason: dependsOn ? reason : null,
        max_attempts: maxAttempts,
        depends_on: dependsOn,
        vram_gb: t.vramGb,
        tags_json: tags,
        timeout_s: t.timeoutS,
        imported_by: actor,
        due_at: s.due,
        now,
      });
    }
    // Many rows per statement, each new job with its creation event (its reason, by `actor`); an
    // id already stored writes nothing.
    const jobIds = insertJobs(db, clock, jobs);
    return { imported: jobIds.length, duplicates: jobs.length - jobIds.length, rejected, jobIds };
  });
}
