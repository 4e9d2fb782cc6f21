/**
 * The one place a job's view is built: the row, why a queued job waits (job-why.ts, against what the
 * farm running here knows, else what the store holds) and what a running attempt is doing now
 * (queries/job-live.ts). The engine builds one `JobViews` and gives the same function to the
 * announcer (events, hooks, action answers) and to the handlers (`jobs.list`, `jobs.get`), so an
 * announced view and a listed view of the same job cannot be assembled differently.
 */
import type { JobView } from '../../../shared/domain.js';
import type { Clock } from '../clock.js';
import { withLive, type LiveFarm } from '../queries/job-live.js';
import type { FarmFacts } from './farm-facts.js';
import { viewsWithWaits } from './job-why.js';
import { storedFarmFacts } from './stored-facts.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import type { TemplateCache } from '../templates/template-cache.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';

/** What a view needs of the farm running in this process (the scheduler; absent in one-shot CLI runs). */
export interface ViewFarm extends LiveFarm {
  /** What the farm knows now (live probes, node lists, reservations). */
  waitFacts(): FarmFacts;
}

export interface JobViewSources {
  db: Db;
  clock: Clock;
  /** The farm running in this process, or null: asked at each build (it starts and stops). */
  farm(): ViewFarm | null;
  templates: TemplateCache;
  /** The farm settings, for a process that runs no farm (the burst settings in why a job waits). */
  settings: SettingsReader;
}

/** Rows to the views every API answer and event carries. */
export type JobViews = (rows: readonly JobRow[]) => JobView[];

/** What the farm running here knows, else what the store holds (a CLI process). */
export function currentFarmFacts(src: Pick<JobViewSources, 'db' | 'clock' | 'farm' | 'settings'>): FarmFacts {
  return src.farm()?.waitFacts() ?? storedFarmFacts(src.db, src.settings, src.clock.now());
}

export function jobViewBuilder(src: JobViewSources): JobViews {
  return (rows) =>
    withLive(
      src.db,
      src.farm(),
      viewsWithWaits(rows, () => currentFarmFacts(src), src.templates),
      src.clock.now(),
    );
}
