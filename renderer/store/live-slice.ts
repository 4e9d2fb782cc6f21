/** Workstations by id, the connection and the farm status; refetched on reconnect (events reach them through jobs-slice.ts). */
import type { InstanceView, JobPage } from '../../shared/domain.js';
import { ApiError, errorMessage, type ShotfarmClient } from '../client/client.js';
import { stopFarmConfirmation } from '../lib/bulk-policy.js';
import { throttle } from '../lib/throttle.js';
import { FARM_STATE_WORDS, type FarmState } from '../../shared/farm-settings.js';
import type { GetState, LiveSlice, SetState } from './types.js';

/** The contract method that records each farm state. */
const FARM_METHOD = { running: 'farm.resume', paused: 'farm.pause', stopped: 'farm.stop' } as const satisfies Record<
  FarmState,
  string
>;

export function createLiveSlice(set: SetState, get: GetState, client: ShotfarmClient): LiveSlice {
  const refreshStatus = throttle(() => {
    client.call('farm.status', {}).then(
      (status) => set({ status }),
      () => undefined,
    );
  }, 700);

  /**
   * Records a farm state, the one way the page does it. A confirmed stop sends the running jobs its
   * question named (`seen`): refused when something else runs by then — and then asked again.
   */
  const recordFarmState = async (state: FarmState, seen: string[] | null = null): Promise<void> => {
    const by = 'Studio UI';
    try {
      const status =
        state === 'stopped' && seen
          ? await client.call('farm.stop', { by, expectRunning: seen })
          : await client.call(FARM_METHOD[state], { by });
      set({ status });
      get().notify('info', `Farm ${FARM_STATE_WORDS[state]}.`);
    } catch (err) {
      get().notify('error', errorMessage(err));
      if (seen && err instanceof ApiError && err.envelope.code === 'conflict') void get().askStopFarm();
    }
  };

  // Who we are decides only what is shown; on failure everything stays shown and the server still refuses.
  const askSession = (): void => {
    client.call('session.whoami', {}).then(
      (session) => get().setSession(session),
      () => undefined,
    );
  };

  return {
    client,
    instances: {},
    connection: 'connecting',
    info: null,
    session: null,
    status: null,
    forecast: null,
    setForecast(forecast) {
      set({ forecast });
    },
    liveTick: 0,
    peopleTick: 0,
    peopleChanged() {
      set((s) => ({ peopleTick: s.peopleTick + 1 }));
      askSession();
    },
    setSession(session) {
      set({ session });
      get().keepUndosOf(session);
    },
    async refetchAll() {
      try {
        const [info, status] = await Promise.all([client.info(), client.call('farm.status', {})]);
        const instances: Record<string, InstanceView> = {};
        for (const i of status.instances) instances[i.id] = i;
        set((s) => ({ info, status, instances, liveTick: s.liveTick + 1 }));
        get().reloadVisible();
        askSession();
        // The forecast is for the Queue's panel; a page without it (an older engine) just shows none.
        client.call('forecast.get', {}).then(
          (forecast) => set({ forecast }),
          () => undefined,
        );
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
    refreshStatus,
    refreshDrivers() {
      // The farm status carries every card with the engine driving it (and the counts, fresh too).
      client.call('farm.status', {}).then(
        (status) => {
          const instances: Record<string, InstanceView> = {};
          for (const i of status.instances) instances[i.id] = i;
          set({ status, instances });
        },
        () => undefined,
      );
    },
    async askStopFarm() {
      // What is rendering now, named in the question, and every running id, which the stop sends
      // back: the engine refuses it if anything else runs by then. Running jobs are bounded by the
      // farm's slots, so one page holds them all.
      let page: JobPage = { rows: [], total: get().status?.jobsByState.running ?? 0 };
      let seen: string[] | null = null;
      try {
        page = await client.call('jobs.list', { filter: { states: ['running'] }, limit: 100_000 });
        seen = page.rows.map((j) => j.id);
      } catch {
        // The question still says how many run, from the farm's counts; the stop then stops what runs.
      }
      const name = (id: string | null) => (id ? (get().instances[id]?.name ?? null) : null);
      get().ask({
        ...stopFarmConfirmation(page.rows, page.total, name),
        onConfirm: () => void recordFarmState('stopped', seen),
      });
    },
    setFarmState: (state) => recordFarmState(state),
  };
}
