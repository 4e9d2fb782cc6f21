/**
 * Every statement on `farm_state_changes`: each pause, stop and resume, who and when. The Timeline
 * draws the stretches the farm was not dispatching from it. Rows are validated on read (the state
 * against FARM_STATES): a hand-edited row must not draw a band of a state that does not exist.
 */
import { FARM_STATES, type FarmState } from '../../../shared/farm-settings.js';
import type { Db } from './database.js';
import { all, one, run } from './statements.js';

const SQL_ADD = 'INSERT INTO farm_state_changes (state, actor, at) VALUES (?, ?, ?)';
/** The last change at or before a time: the state the farm was in then. */
const SQL_AT = 'SELECT state, actor, at FROM farm_state_changes WHERE at <= ? ORDER BY at DESC, id DESC LIMIT 1';
/** The changes after one time up to another, in order. Bounded: a window with more is a farm toggled every second. */
/** The first change after a time: where a stretch still in force at the window's end really ends. */
const SQL_AFTER = 'SELECT state, actor, at FROM farm_state_changes WHERE at > ? ORDER BY at, id LIMIT 1';
const SQL_BETWEEN =
  'SELECT state, actor, at FROM farm_state_changes WHERE at > ? AND at <= ? ORDER BY at, id LIMIT 5000';

export interface FarmStateChange {
  state: FarmState;
  actor: string;
  at: number;
}

interface Row {
  state: string;
  actor: string;
  at: number;
}

const isState = (s: string): s is FarmState => (FARM_STATES as readonly string[]).includes(s);

function valid(r: Row | undefined): FarmStateChange | null {
  return r && isState(r.state) ? { state: r.state, actor: r.actor, at: r.at } : null;
}

/** Records a change, in the caller's transaction (the farm state's own row is written beside it). */
export function addFarmStateChange(db: Db, change: FarmStateChange): void {
  run(db, SQL_ADD, change.state, change.actor, change.at);
}

/**
 * The change in force at `from` (null: none recorded by then), the changes after it up to `to`, and
 * the first one after `to` (which ends a stretch the window cuts).
 */
export function farmStateChanges(
  db: Db,
  from: number,
  to: number,
): { before: FarmStateChange | null; during: FarmStateChange[]; after: FarmStateChange | null } {
  return {
    before: valid(one<Row>(db, SQL_AT, from)),
    during: all<Row>(db, SQL_BETWEEN, from, to).flatMap((r) => valid(r) ?? []),
    after: valid(one<Row>(db, SQL_AFTER, to)),
  };
}
