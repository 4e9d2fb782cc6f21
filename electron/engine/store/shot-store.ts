/**
 * Every statement on `projects`, `episodes` and `shots`: the names a job belongs to, created the
 * first time an import names them. Used inside the import's transaction; the ids are remembered for
 * that one transaction, so a 100k-row file asks the store once per name, not once per row.
 */
import type { Db } from './database.js';
import { inPadded, insertRows, paramList, unnestRows, valueRows } from './bulk.js';
import { all, one, run } from './statements.js';

const SQL_PROJECT = 'INSERT INTO projects (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING';
const SQL_PROJECT_ID = 'SELECT id FROM projects WHERE name = ?';
const SQL_EPISODE =
  'INSERT INTO episodes (project_id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING';
const SQL_EPISODE_ID = 'SELECT id FROM episodes WHERE project_id = ? AND name = ?';
/** A job row's shot joined as `alias` (its metadata: the shot list's sequence), for another table's query. */
export function sqlJoinShotOf(jobAlias: string, alias: string): string {
  return `JOIN shots ${alias} ON ${alias}.id = ${jobAlias}.shot_id`;
}

const sqlInsertShots = (rows: number): string =>
  `INSERT INTO shots (episode_id, code, description, metadata_json, created_at) VALUES ${valueRows(5, rows)}
  ON CONFLICT (episode_id, code) DO NOTHING RETURNING id, code`;
/** The same insert on PostgreSQL, one array per column (bulk.ts unnestRows). */
const SQL_INSERT_SHOTS_ARRAYS = `INSERT INTO shots (episode_id, code, description, metadata_json, created_at)
  ${unnestRows(['bigint', 'text', 'text', 'text', 'bigint'])}
  ON CONFLICT (episode_id, code) DO NOTHING RETURNING id, code`;
/** How many shot codes one id lookup asks for (the last chunk padded to it: one statement text). */
const CODES_PER_LOOKUP = 500;
const SQL_SHOT_IDS = `SELECT id, code FROM shots WHERE episode_id = ? AND code IN (${paramList(CODES_PER_LOOKUP)})`;

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

  /**
   * The shot id of each of these rows, in their order, creating the projects, episodes and shots
   * they name that do not exist yet: a few hundred shots per statement, and only the shots stored
   * before looked up (a chunk at a time). A 100k-shot import asks the store a few hundred times
   * instead of twice per shot, and builds no key string per row (shots are found by episode, then
   * code). The first row naming a new shot gives its description and metadata.
   */
  idsOf(names: readonly ShotName[]): number[] {
    const { db, now } = this;
    const episodeOfRow = new Array<number>(names.length);
    const byEpisode = new Map<number, Map<string, ShotName>>();
    // A file's rows mostly share one project and episode: the last row's episode id serves the next.
    let last: ShotName | undefined;
    let episodeId = 0;
    for (let i = 0; i < names.length; i++) {
      const s = names[i] as ShotName;
      if (last === undefined || s.project !== last.project || s.episode !== last.episode) episodeId = this.episodeOf(s);
      last = s;
      episodeOfRow[i] = episodeId;
      let shots = byEpisode.get(episodeId);
      if (!shots) byEpisode.set(episodeId, (shots = new Map()));
      if (!shots.has(s.shot)) shots.set(s.shot, s);
    }
    const idsByEpisode = new Map<number, Map<string, number>>();
    for (const [episodeId, shots] of byEpisode) {
      const ids = new Map<string, number>();
      idsByEpisode.set(episodeId, ids);
      const list = [...shots.values()];
      // A new shot's id comes back from its insert; only shots stored before are looked up.
      const inserted = insertRows<ShotName, { id: number; code: string }>(db, list, {
        row: (s) => [episodeId, s.shot, s.description, JSON.stringify(s.metadata), now],
        values: sqlInsertShots,
        arrays: SQL_INSERT_SHOTS_ARRAYS,
        returning: true,
      });
      for (const r of inserted) ids.set(r.code, r.id);
      inPadded(
        list.filter((s) => !ids.has(s.shot)).map((s) => s.shot),
        CODES_PER_LOOKUP,
        (codes) => {
          for (const r of all<{ id: number; code: string }>(db, SQL_SHOT_IDS, episodeId, ...codes))
            ids.set(r.code, r.id);
        },
      );
    }
    return names.map((s, i) => {
      const id = idsByEpisode.get(episodeOfRow[i] as number)?.get(s.shot);
      if (id === undefined) throw new Error(`the shot ${s.project}/${s.episode}/${s.shot} was not written`);
      return id;
    });
  }

  /** The shot's episode id, creating its project and episode rows when they do not exist yet. */
  private episodeOf(s: ShotName): number {
    const { db, now } = this;
    const projectId = this.cached(
      `p\u001f${s.project}`,
      () => run(db, SQL_PROJECT, s.project, now),
      () => one<{ id: number }>(db, SQL_PROJECT_ID, s.project),
    );
    return this.cached(
      `e\u001f${projectId}\u001f${s.episode}`,
      () => run(db, SQL_EPISODE, projectId, s.episode, now),
      () => one<{ id: number }>(db, SQL_EPISODE_ID, projectId, s.episode),
    );
  }

  /**
   * The id of a named row, remembered; asked first and created only when missing, so a name the
   * store has (every import after a project's first) costs one statement, not an insert that does
   * nothing and then the same question (a round trip each on PostgreSQL). Inside the import's
   * transaction, which holds the store's write lock, nothing can add the row in between.
   */
  private cached(key: string, insert: () => unknown, select: () => { id: number } | undefined): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      let row = select();
      if (!row) {
        insert();
        row = select();
      }
      if (!row) throw new Error(`the row for ${key.replace(/\u001f/g, '/')} was not written`);
      id = row.id;
      this.ids.set(key, id);
    }
    return id;
  }
}
