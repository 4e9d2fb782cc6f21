/**
 * The stretches the farm was paused or stopped within a window, for the Timeline's bands: from the
 * recorded changes (store/farm-state-history.ts). A farm whose state was set before the history
 * existed has no rows: its current state, since it was set, stands in for them.
 */
import type { FarmPeriod } from '../../../shared/domain.js';
import type { FarmStateView } from '../../../shared/farm-settings.js';
import type { Db } from '../store/database.js';
import { farmStateChanges, type FarmStateChange } from '../store/farm-state-history.js';

/** Folds changes in time order into the not-running stretches overlapping [from, to]. Pure. */
export function periodsOf(
  before: FarmStateChange | null,
  during: readonly FarmStateChange[],
  from: number,
  to: number,
): FarmPeriod[] {
  const out: FarmPeriod[] = [];
  let open: FarmPeriod | null = null;
  for (const c of before ? [before, ...during] : during) {
    // A pause followed by a stop is one stretch of each; a repeated pause keeps the first.
    if (open && open.state === c.state) continue;
    if (open) {
      open.to = c.at;
      out.push(open);
      open = null;
    }
    if (c.state !== 'running') open = { state: c.state, from: c.at, to: null, by: c.actor };
  }
  if (open) out.push(open);
  return out.filter((p) => p.from <= to && (p.to === null || p.to >= from));
}

export function farmPeriods(db: Db, from: number, to: number, current: FarmStateView): FarmPeriod[] {
  const { before, during, after } = farmStateChanges(db, from, to);
  if (!before && during.length === 0 && !after && current.at !== null && current.at <= to)
    return periodsOf({ state: current.state, actor: current.by ?? 'an operator', at: current.at }, [], from, to);
  // The change after the window closes a stretch the window cuts; a stretch it opens starts past `to` and is left out.
  return periodsOf(before, after ? [...during, after] : during, from, to);
}
