/**
 * The farm's durable state (running / paused / stopped, who set it and when), one `settings` row.
 * Written before any engine acts on it, so a stop or pause survives a crash, a kill -9 and a restart
 * of the engine or the app; a scheduler reads it when it starts, and a running one notices a change
 * made by another process (live-settings.ts). Each change is also kept as a history row
 * (farm-state-history.ts), which the Timeline draws as paused / stopped bands.
 */
import { farmStateRecordSchema, type FarmState, type FarmStateView } from '../../../shared/farm-settings.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../store/database.js';
import { addFarmStateChange } from '../store/farm-state-history.js';
import { readSetting, writeSetting } from '../store/settings-store.js';

const KEY = 'farm.state';

/** The state as recorded; `running` (by nobody) when it was never changed. */
export function readFarmState(db: Db): FarmStateView {
  const r = readSetting(db, KEY, farmStateRecordSchema, {
    badJson: 'The recorded farm state is not valid JSON; set it again with shotfarm farm pause, stop or resume.',
    invalid: (issues) =>
      `The recorded farm state is invalid (${issues}); set it again with shotfarm farm pause, stop or resume.`,
  });
  return r ?? { state: 'running', by: null, at: null };
}

export function writeFarmState(db: Db, clock: Clock, state: FarmState, by: string): FarmStateView {
  const record = farmStateRecordSchema.parse({ state, by, at: clock.now() });
  // The state and its history row together: the Timeline's bands never disagree with the state.
  inTransaction(db, () => {
    writeSetting(db, KEY, record, record.at);
    addFarmStateChange(db, { state, actor: by, at: record.at });
  });
  return record;
}
