/**
 * Stores the valid rows of a preview in ONE transaction: the projects, episodes and shots they
 * name, and a job per row with its creation event. Rows whose job id already exists are counted
 * as duplicates and change nothing, so importing the same list twice adds nothing.
 */
import type { ImportResult } from '../../../shared/domain.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Clock, RandomSource } from '../clock.js';
import { jobId } from '../ids.js';
import { recordJobCreated } from '../job-state.js';
import { inTransaction, type Db } from '../store/database.js';
import { stmt } from '../store/statements.js';
import { DEFAULT_MAX_ATTEMPTS } from '../templates/stage-defaults.js';
import type { CheckedRow } from './preview.js';

const SQL_PROJECT = `INSERT INTO projects (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`;
const SQL_PROJECT_ID = `SELECT id FROM projects WHERE name = ?`;
const SQL_EPISODE = `INSERT INTO episodes (project_id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING`;
const SQL_EPISODE_ID = `SELECT id FROM episodes WHERE project_id = ? AND name = ?`;
const SQL_SHOT = `INSERT INTO shots (episode_id, code, description, metadata_json, created_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (episode_id, code) DO NOTHING`;
const SQL_SHOT_ID = `SELECT id FROM shots WHERE episode_id = ? AND code = ?`;
/** The newest take of a stage of a shot: what a dependent stage waits for when the file does not say. */
const SQL_LATEST_TAKE = `SELECT id, take FROM jobs WHERE project = ? AND episode = ? AND shot = ? AND stage = ? ORDER BY take DESC LIMIT 1`;
const SQL_INSERT_JOB = `INSERT INTO jobs (id, shot_id, project, episode, shot, stage, take, template_id, template_name, params_json,
  inputs_json, seed, seed_pinned, priority, rank, state, state_reason, max_attempts, depends_on, vram_gb, tags_json, timeout_s,
  enqueued_at, created_at, updated_at)
  VALUES (@id, @shot_id, @project, @episode, @shot, @stage, @take, @template_id, @template_name, @params_json,
  @inputs_json, @seed, @seed_pinned, @priority, 0, @state, @state_reason, @max_attempts, @depends_on, @vram_gb, @tags_json, @timeout_s,
  @now, @now, @now)
  ON CONFLICT (id) DO NOTHING`;

const stageKey = (...parts: string[]): string => parts.join('\u001f');

/** Draws a seed in ComfyUI's usual range that stays a safe integer in JS and SQLite. */
export function drawSeed(random: RandomSource): number {
  return Math.floor(random() * 2 ** 48);
}

export function commitRows(db: Db, clock: Clock, random: RandomSource, rows: CheckedRow[], actor = 'import'): ImportResult {
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
    const ids = new Map<string, number>();
    const cachedId = (key: string, insert: () => void, select: () => { id: number } | undefined): number => {
      let id = ids.get(key);
      if (id === undefined) {
        insert();
        id = (select() as { id: number }).id;
        ids.set(key, id);
      }
      return id;
    };
    const jobIds: string[] = [];
    let duplicates = 0;
    for (const r of valid) {
      const s = r.source;
      const t = r.template!;
      const projectId = cachedId(`p\u001f${s.project}`, () => stmt(db, SQL_PROJECT).run(s.project, now),
        () => stmt(db, SQL_PROJECT_ID).get(s.project) as { id: number });
      const episodeId = cachedId(`e\u001f${projectId}\u001f${s.episode}`, () => stmt(db, SQL_EPISODE).run(projectId, s.episode, now),
        () => stmt(db, SQL_EPISODE_ID).get(projectId, s.episode) as { id: number });
      const shotId = cachedId(`s\u001f${episodeId}\u001f${s.shot}`,
        () => stmt(db, SQL_SHOT).run(episodeId, s.shot, s.description, JSON.stringify(s.metadata), now),
        () => stmt(db, SQL_SHOT_ID).get(episodeId, s.shot) as { id: number });

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
          const stored = stmt(db, SQL_LATEST_TAKE).get(s.project, s.episode, s.shot, s.dependsOn) as { id: string; take: number } | undefined;
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
      const info = stmt(db, SQL_INSERT_JOB).run({
        id, shot_id: shotId, project: s.project, episode: s.episode, shot: s.shot, stage: s.stage, take: s.take,
        template_id: t.id, template_name: t.name, params_json: JSON.stringify(r.parameters), inputs_json: JSON.stringify(r.inputs),
        seed, seed_pinned: explicitSeed !== null ? 1 : 0, priority: PRIORITY_VALUE[s.priority], state,
        state_reason: dependsOn ? reason : null, max_attempts: DEFAULT_MAX_ATTEMPTS, depends_on: dependsOn,
        vram_gb: t.vramGb, tags_json: JSON.stringify(t.tags), timeout_s: t.timeoutS, now,
      });
      if (info.changes === 1) {
        recordJobCreated(db, clock, id, state, reason, actor);
        jobIds.push(id);
      } else {
        duplicates++;
      }
    }
    return { imported: jobIds.length, duplicates, rejected, jobIds };
  });
}
