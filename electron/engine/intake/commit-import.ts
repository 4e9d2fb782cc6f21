/**
 * Stores the valid rows of a preview in ONE transaction: the projects, episodes and shots they
 * name, and a job per row with its creation event. Rows whose job id already exists are counted
 * as duplicates and change nothing, so importing the same list twice adds nothing.
 */
import type { ImportResult } from '../../../shared/domain.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Clock, RandomSource } from '../clock.js';
import { jobId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import { insertJob, newestTake } from '../store/job-store.js';
import { ShotIds } from '../store/shot-store.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import type { CheckedRow } from './preview.js';

const stageKey = (...parts: string[]): string => parts.join('\u001f');

/** Draws a seed in ComfyUI's usual range that stays a safe integer in JS and SQLite. */
export function drawSeed(random: RandomSource): number {
  return Math.floor(random() * 2 ** 48);
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
  const validIds = new Set(valid.map((r) => r.view.jobId));
  const newestInBatch = new Map<string, { id: string; take: number }>();
  for (const r of valid) {
    const key = stageKey(r.source.project, r.source.episode, r.source.shot, r.source.stage);
    const cur = newestInBatch.get(key);
    if (!cur || cur.take < r.source.take) newestInBatch.set(key, { id: r.view.jobId!, take: r.source.take });
  }
  return inTransaction(db, () => {
    const now = clock.now();
    // The attempt budget in force now (a later change of the setting updates unfinished jobs).
    const maxAttempts = settings.get('retry_attempts');
    const shots = new ShotIds(db, now);
    const jobIds: string[] = [];
    let duplicates = 0;
    for (const r of valid) {
      const s = r.source;
      const t = r.template!;
      const shotId = shots.of(s);

      let dependsOn: string | null = null;
      let dependsLabel = '';
      if (s.dependsOn) {
        // Same take of the stage in this file first, else the newest stored take.
        const sibling = jobId({ ...s, stage: s.dependsOn });
        const newest = newestInBatch.get(stageKey(s.project, s.episode, s.shot, s.dependsOn));
        if (validIds.has(sibling)) {
          dependsOn = sibling;
          dependsLabel = `${s.dependsOn} take ${s.take}`;
        } else if (newest) {
          dependsOn = newest.id;
          dependsLabel = `${s.dependsOn} take ${newest.take}`;
        } else {
          const stored = newestTake(db, s.project, s.episode, s.shot, s.dependsOn);
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
      const created = insertJob(
        db,
        clock,
        {
          id,
          shot_id: shotId,
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
          tags_json: JSON.stringify(t.tags),
          timeout_s: t.timeoutS,
          imported_by: actor,
          now,
        },
        { reason, actor },
      );
      if (created) {
        jobIds.push(id);
      } else {
        duplicates++;
      }
    }
    return { imported: jobIds.length, duplicates, rejected, jobIds };
  });
}
