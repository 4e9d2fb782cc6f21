/**
 * The farm domain: jobs by state and the workstations, the operator's durable farm state
 * (stop / pause / resume), the per-GPU timeline. A state is recorded first and then acted on by the
 * farm in this process, if one runs; a farm running in another process on the same data folder
 * acts on it at its next settings check (settings/live-settings.ts). With no farm running anywhere,
 * the state is only recorded — the next start honours it.
 */
import type { ApiHandlers } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { isHealthy, type FarmStatus, type InstanceView, type StorageHoldView } from '../../../shared/domain.js';
import { farmEngines, withDrivers } from '../views/farm-engines.js';
import type { FarmState } from '../../../shared/farm-settings.js';
import type { Caller } from '../../../shared/people.js';
import { timeline } from '../queries/attempts.js';
import { farmPeriods } from '../queries/farm-periods.js';
import { readFarmState, writeFarmState } from '../settings/farm-state.js';
import { databaseFault } from '../store/database.js';
import { listInstanceRows, toInstanceView } from '../store/instance-store.js';
import { blockedCount, countByState, jobRow, listJobIds, openFailureCount } from '../store/job-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

/** What the status reads from the store itself (the rest a running farm keeps in memory). */
interface StoredFacts {
  blocked: number;
  openFailures: number;
  farmState: FarmStatus['farmState'];
}

export function farmHandlers(ctx: EngineContext): DomainHandlers<'farm'> & Pick<ApiHandlers, 'timeline.get'> {
  let lastStored: StoredFacts | null = null;
  /**
   * A running farm still answers while its database cannot be read (a PostgreSQL server stopped):
   * with what it last read and the hold that says why, rather than an error in place of the status.
   */
  const stored = (): { facts: StoredFacts; fault: StorageHoldView | null } => {
    try {
      const facts: StoredFacts = {
        blocked: blockedCount(ctx.db),
        openFailures: openFailureCount(ctx.db),
        farmState: readFarmState(ctx.db),
      };
      lastStored = facts;
      return { facts, fault: null };
    } catch (err) {
      const fault = databaseFault(err);
      if (!ctx.farm() || !lastStored || !fault) throw err;
      const now = ctx.clock.now();
      return {
        facts: lastStored,
        fault: { kind: fault.kind, reason: `${fault.words} (reading the farm status)`, since: now, retryAt: now },
      };
    }
  };
  /** The cards with the engine that drives each (several engines on PostgreSQL); as they are while the store cannot be read. */
  const drivenBy = (cards: InstanceView[]): InstanceView[] => {
    try {
      return withDrivers(ctx.db, cards);
    } catch (err) {
      if (!ctx.farm() || !databaseFault(err)) throw err;
      return cards;
    }
  };
  const status = (): FarmStatus => {
    const farm = ctx.farm();
    // A running farm answers from what it keeps (counters moved by the event rows, its cards); a
    // process with no farm (the CLI's `status`) counts once.
    const cards = farm ? farm.instanceViews() : listInstanceRows(ctx.db).map((r) => toInstanceView(ctx.db, r));
    const instances = drivenBy(cards);
    const probed = instances.filter((i) => i.lastProbeAt !== null);
    const { facts, fault } = stored();
    const hold = farm?.storageHold() ?? fault;
    return {
      jobsByState: farm ? farm.jobsByState() : countByState(ctx.db),
      jobsNext: farm?.live.notStarted() ?? 0,
      blocked: facts.blocked,
      openFailures: facts.openFailures,
      instances,
      healthyInstances: probed.length ? probed.filter((i) => isHealthy(i.health)).length : null,
      dispatching: farm !== null && farm.farmState === 'running' && hold === null,
      farmState: facts.farmState,
      activeAttempts: farm?.activeAttempts() ?? 0,
      storageHold: hold,
    };
  };
  const control =
    (state: FarmState) =>
    async ({ by }: { by?: string | undefined }, caller: Caller): Promise<FarmStatus> => {
      // A person is named by their token, never by what they typed; the solo operator may say who they are.
      writeFarmState(ctx.db, ctx.clock, state, caller.kind === 'person' ? caller.name : (by ?? 'an operator'));
      await ctx.settings.reload('farm');
      return status();
    };
  const stop = control('stopped');
  return {
    'farm.status': async () => status(),
    'farm.engines': async () => farmEngines(ctx.db, ctx.settings.get('lease_s')),
    'farm.stop': async (input, caller) => {
      if (input.expectRunning) refuseUnnamedRuns(ctx, input.expectRunning);
      return stop(input, caller);
    },
    'farm.pause': control('paused'),
    'farm.resume': control('running'),
    'timeline.get': async ({ from, to }) => ({
      ...timeline(ctx.db, from, to, ctx.farm()?.live ?? null),
      farmPeriods: farmPeriods(ctx.db, from, to, readFarmState(ctx.db)),
    }),
  };
}

/**
 * A stop confirmed in a dialog interrupts only what the dialog named: a job that started running
 * after the question was asked refuses the stop (nothing is recorded), and the person is asked again.
 * Checked and recorded in one turn of the event loop, so no dispatch happens in between.
 */
function refuseUnnamedRuns(ctx: EngineContext, named: readonly string[]): void {
  const shown = new Set(named);
  const unnamed = listJobIds(ctx.db, { states: ['running'] }).ids.filter((id) => !shown.has(id));
  if (unnamed.length === 0) return;
  const names = unnamed.slice(0, 3).map((id) => {
    const r = jobRow(ctx.db, id);
    return r ? `${r.shot}/${r.stage}` : id;
  });
  const more = unnamed.length > names.length ? ` and ${(unnamed.length - names.length).toLocaleString()} more` : '';
  throw new ShotfarmError(
    'conflict',
    `The farm was not stopped: ${names.join(', ')}${more} started rendering after you were asked. Look at what runs now and confirm again.`,
  );
}
