/**
 * Every statement on `projects`, `episodes` and `shots`: the names a job belongs to, created the
 * first time an import names them. Used inside the import's transaction; the ids are remembered for
 * that one transaction, so a 100k-row file asks the store once per name, not once per row.
 */
import type { Db } from './database.js';
import { inPadded, insertRows, insertRowsAfterLast, paramList, unnestRows, valueRows } from './bulk.js';
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

/** SQLite's bulk insert of shots: no RETURNING (ShotIds.writeShots says why). */
const sqlInsertShots = (rows: number): string =>
  `INSERT INTO shots (episode_id, code, description, metadata_json, created_at) VALUES ${valueRows(5, rows)}
  ON CONFLICT (episode_id, code) DO NOTHING`;
/** How many shots lie past `id`, and the largest: n new shots took ids id+1 … id+n exactly when n and id+n. */
const SQL_SHOTS_AFTER = 'SELECT COUNT(*) AS n, MAX(id) AS last FROM shots WHERE id > ?';
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
   * code, and each row keeps its shot's place in its episode's list). The first row naming a new
   * shot gives its description and metadata.
   */
  idsOf(names: readonly ShotName[]): number[] {
    /** Per episode met: its id, its distinct shots in first-seen order, and each one's place in that order. */
    const episodes: { id: number; shots: ShotName[]; place: Map<string, number> }[] = [];
    const episodeOfRow = new Array<number>(names.length);
    const placeOfRow = new Array<number>(names.length);
    const episodeIndex = new Map<number, number>();
    // A file's rows mostly share one project and episode: the last row's episode serves the next.
    let last: ShotName | undefined;
    let e = -1;
    for (let i = 0; i < names.length; i++) {
      const s = names[i] as ShotName;
      if (last === undefined || s.project !== last.project || s.episode !== last.episode) {
        const id = this.episodeOf(s);
        let at = episodeIndex.get(id);
        if (at === undefined) {
          episodeIndex.set(id, (at = episodes.length));
          episodes.push({ id, shots: [], place: new Map() });
        }
        e = at;
      }
      last = s;
      const ep = episodes[e] as (typeof episodes)[number];
      let place = ep.place.get(s.shot);
      if (place === undefined) {
        ep.place.set(s.shot, (place = ep.shots.length));
        ep.shots.push(s);
      }
      episodeOfRow[i] = e;
      placeOfRow[i] = place;
    }
    const ids = episodes.map((ep) => this.writeShots(ep.id, ep.shots));
    return names.map((s, i) => {
      const id = (ids[episodeOfRow[i] as number] as (number | undefined)[])[placeOfRow[i] as number];
      if (id === undefined) throw new Error(`the shot ${s.project}/${s.episode}/${s.shot} was not written`);
      return id;
    });
  }

  /**
   * Writes the shots of one episode that are not stored yet; returns every one's id, in the order
   * given. On SQLite the new ids are not returned row by row (bulk.ts insertRowsAfterLast): when
   * every shot was new, they took the rowids after the table's largest, in order — SQLite's rule
   * for a row inserted without one — which one range count confirms; else (some stored before)
   * every id is looked up. PostgreSQL returns the new ids with the insert.
   */
  private writeShots(episodeId: number, shots: readonly ShotName[]): (number | undefined)[] {
    const { db, now } = this;
    const insert = {
      row: (s: ShotName) => [episodeId, s.shot, s.description, JSON.stringify(s.metadata), now],
      values: sqlInsertShots,
      arrays: SQL_INSERT_SHOTS_ARRAYS,
    };
    const byCode = new Map<string, number>();
    if (db.dialect === 'postgres') {
      for (const r of insertRows<ShotName, { id: number; code: string }>(db, shots, { ...insert, returning: true }))
        byCode.set(r.code, r.id);
    } else {
      const { afterRowid, written } = insertRowsAfterLast(db, 'shots', shots, insert);
      if (written === shots.length) {
        const range = one<{ n: number; last: number | null }>(db, SQL_SHOTS_AFTER, afterRowid);
        if (range?.n === shots.length && range.last === afterRowid + shots.length)
          return shots.map((_, i) => afterRowid + 1 + i);
      }
    }
    inPadded(
      shots.filter((s) => !byCode.has(s.shot)).map((s) => s.shot),
      CODES_PER_LOOKUP,
      (codes) => {
        for (const r of all<{ id: number; code: string }>(db, SQL_SHOT_IDS, episodeId, ...codes))
          byCode.set(r.code, r.id);
      },
    );
    return shots.map((s) => byCode.get(s.shot));
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
