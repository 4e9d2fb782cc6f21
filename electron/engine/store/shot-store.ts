/**
 * Every statement on `projects`, `episodes` and `shots`: the names a job belongs to, created the
 * first time an import names them. Used inside the import's transaction; the ids are remembered for
 * that one transaction, so a 100k-row file asks the store once per name, not once per row.
 */
import type { Db } from './database.js';
import { one, run } from './statements.js';

const SQL_PROJECT = 'INSERT INTO projects (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING';
const SQL_PROJECT_ID = 'SELECT id FROM projects WHERE name = ?';
const SQL_EPISODE =
  'INSERT INTO episodes (project_id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING';
const SQL_EPISODE_ID = 'SELECT id FROM episodes WHERE project_id = ? AND name = ?';
const SQL_SHOT = `INSERT INTO shots (episode_id, code, description, metadata_json, created_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (episode_id, code) DO NOTHING`;
/** A job row's shot joined as `alias` (its metadata: the shot list's sequence), for another table's query. */
export function sqlJoinShotOf(jobAlias: string, alias: string): string {
  return `JOIN shots ${alias} ON ${alias}.id = ${jobAlias}.shot_id`;
}

const SQL_SHOT_ID = 'SELECT id FROM shots WHERE episode_id = ? AND code = ?';

export interface ShotName {
  project: string;
  episode: string;
  shot: string;
  description: string | null;
  metadata: Record<string, string>;
}

export class ShotIds {
  private readonly ids = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: number,
  ) {}

  /** The shot's id, creating its project, episode and shot rows when they do not exist yet. */
  of(s: ShotName): number {
    const { db, now } = this;
    const projectId = this.cached(
      `p\u001f${s.project}`,
      () => run(db, SQL_PROJECT, s.project, now),
      () => one<{ id: number }>(db, SQL_PROJECT_ID, s.project),
    );
    const episodeId = this.cached(
      `e\u001f${projectId}\u001f${s.episode}`,
      () => run(db, SQL_EPISODE, projectId, s.episode, now),
      () => one<{ id: number }>(db, SQL_EPISODE_ID, projectId, s.episode),
    );
    return this.cached(
      `s\u001f${episodeId}\u001f${s.shot}`,
      () => run(db, SQL_SHOT, episodeId, s.shot, s.description, JSON.stringify(s.metadata), now),
      () => one<{ id: number }>(db, SQL_SHOT_ID, episodeId, s.shot),
    );
  }

  private cached(key: string, insert: () => unknown, select: () => { id: number } | undefined): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      insert();
      const row = select();
      if (!row) throw new Error(`the row for ${key.replace(/\u001f/g, '/')} was not written`);
      id = row.id;
      this.ids.set(key, id);
    }
    return id;
  }
}
