/** The renderer store's shape: entity maps written by event reducers, plus the queue, selection and UI slices. */
import type { JobFilter, JOB_SORT_KEYS } from '../../shared/api.js';
import type { FarmStatus, InstanceView, JobView } from '../../shared/domain.js';
import type { FarmState } from '../../shared/farm-settings.js';
import type { SessionView } from '../../shared/people.js';
import type { ForecastView } from '../../shared/forecast.js';
import type { JobAction } from '../../shared/job-states.js';
import type { Priority } from '../../shared/priorities.js';
import type { ConnectionState, ServerInfo, ShotfarmClient } from '../client/client.js';
import type { Confirmation } from '../lib/bulk-policy.js';
import type { UndoPlan } from '../lib/undo.js';
import type { JobMapKey, JobMaps } from './job-map.js';
import type { LiveEvent } from './reducers.js';

export type SortKey = (typeof JOB_SORT_KEYS)[number];

/** The job map and its one writer (jobs-slice.ts). */
export interface JobsSlice extends Readonly<JobMaps> {
  /** Puts rows into the map (each replaces the one held), progress following their state (job-map.ts). */
  upsertJobs(rows: readonly JobView[]): void;
  /** Fetches one job into the map (the drawer's link to a job the queue has not loaded); rejects with the contract's error. */
  loadJob(id: string): Promise<JobView>;
  /** Applies a batch of engine events to the entity maps, and refetches what they made stale. */
  applyBatch(batch: LiveEvent[]): void;
}

export interface LiveSlice {
  client: ShotfarmClient;
  instances: Record<string, InstanceView>;
  connection: ConnectionState;
  info: ServerInfo | null;
  /** Who this page acts as and what their role may do (session.whoami); null until known. */
  session: SessionView | null;
  status: FarmStatus | null;
  /** The forecast per project, episode and sequence (forecast.get, then forecast.changed); null until known. */
  forecast: ForecastView | null;
  setForecast(forecast: ForecastView): void;
  /** Bumped on every batch that touched jobs: query-built views (failures, timeline, ledger) refetch on it. */
  liveTick: number;
  /** Bumped when people changed (people.changed): the People panel refetches on it. */
  peopleTick: number;
  /** People changed: the People panel refetches, and this page asks who it is again (a role changed counts at once). */
  peopleChanged(): void;
  /** Who the page acts as now (whoami's answer; null when signed out): another person's undos leave the page. */
  setSession(session: SessionView | null): void;
  /** Loads everything the screens show (at start and after every reconnect). */
  refetchAll(): Promise<void>;
  refreshStatus(): void;
  /** A PostgreSQL farm's workstations changed engines: the cards are read again, each naming its engine. */
  refreshDrivers(): void;
  /** Records the farm's state (running, paused, stopped); the status and banner follow. */
  setFarmState(state: FarmState): Promise<void>;
  /** Stop farm: asks first, saying what is rendering; then records the stop. */
  askStopFarm(): Promise<void>;
}

export interface QueueQuery {
  filter: JobFilter;
  sort: SortKey;
  descending: boolean;
}

export interface QueueSlice {
  query: QueueQuery;
  total: number;
  /** Loaded pages of row ids, by page index. */
  pages: Record<number, string[]>;
  /** Bumped when the query changes, so answers to an older query are dropped. */
  generation: number;
  visible: [number, number];
  /**
   * Events said the list may have changed (`listStaleSeq` counts them); `listFreshSeq` is the newest
   * of those marks a page answer was asked after. While stale > fresh the rows on screen may be
   * older than the farm's counts: the table says it is loading rather than that the view is empty.
   */
  listStaleSeq: number;
  listFreshSeq: number;
  markListStale(): void;
  /** Changes the query; the selection keeps only the jobs the new filter still shows. */
  setQuery(patch: Partial<QueueQuery>): void;
  setFilter(patch: Partial<JobFilter>): void;
  /** The table reports what it shows; missing pages are fetched. */
  showRange(start: number, end: number): void;
  /** Refetches the pages on screen (after events), keeping the old rows until the new arrive. */
  reloadVisible(): void;
  idAt(index: number): string | undefined;
}

export interface SelectionSlice {
  selected: ReadonlySet<string>;
  anchor: number | null;
  clickRow(index: number, mods: { shift: boolean; toggle: boolean }): void;
  /** Every job the current filter shows (never a hidden one). */
  selectAll(): Promise<void>;
  clearSelection(): void;
  /** Drops selected jobs the filter no longer shows (after their state changed, or the filter did). */
  pruneSelection(ids?: Iterable<string>): void;
  /** An action on the selection; asks first where bulk-policy says so. */
  runAction(action: JobAction, opts?: { priority?: Priority }): Promise<void>;
  /** The same for given jobs (the drawer's buttons). */
  runActionOn(ids: readonly string[], action: JobAction, opts?: { priority?: Priority }): Promise<void>;
  /** Runs an undo still on offer (a toast's button, the action bar's Undo, Ctrl+Z). */
  undo(id: number): Promise<void>;
}

export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  /** Offered while some of its jobs are still where the action put them (also on the action bar, after the toast has gone). */
  undo?: UndoPlan;
}

/** An action that can still be undone, kept after its toast has gone: the action bar's Undo and Ctrl+Z offer the newest. */
export interface UndoEntry {
  /** The id of the toast that announced it. */
  id: number;
  text: string;
  undo: UndoPlan;
  /** Who did the action (the session's name; null when the page did not know yet): only they are offered its undo. */
  by: string | null;
}

/** A question asked before a risky action (bulk-policy.ts), with what to do on yes. */
export interface ConfirmRequest extends Confirmation {
  onConfirm(): void;
}

export interface UiSlice {
  toasts: Toast[];
  /** Undos still on offer, oldest first (at most UNDO_KEPT). */
  undoable: UndoEntry[];
  notify(kind: Toast['kind'], text: string, undo?: UndoPlan): void;
  /** Its undo is no longer possible: it leaves the action bar, and its toast goes the way of any other. */
  expireUndo(id: number): void;
  /** Another person signed in (or nobody is): every undo not theirs leaves the action bar and its toast. */
  keepUndosOf(session: SessionView | null): void;
  dismiss(id: number): void;
  confirm: ConfirmRequest | null;
  ask(c: ConfirmRequest): void;
  answer(yes: boolean): void;
}

export type AppState = JobsSlice & LiveSlice & QueueSlice & SelectionSlice & UiSlice;

/**
 * What a slice other than the jobs slice may write: anything but the job map, whose keys it may not
 * even name — rows go through `upsertJobs`, so a second writer does not compile.
 */
export type StatePatch = Partial<Omit<AppState, JobMapKey>> & { [K in JobMapKey]?: never };
export type SetState = (partial: StatePatch | ((s: AppState) => StatePatch)) => void;
export type GetState = () => AppState;
