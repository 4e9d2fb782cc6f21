/** Entities by id, the connection and the farm status; written by event batches, refetched on reconnect. */
import type { InstanceView } from '../../shared/domain.js';
import { errorMessage, type ShotfarmClient } from '../client/client.js';
import { throttle } from '../lib/throttle.js';
import { applyEvents } from './reducers.js';
import type { GetState, LiveSlice, SetState } from './types.js';

export function createLiveSlice(set: SetState, get: GetState, client: ShotfarmClient): LiveSlice {
  const refreshStatus = throttle(() => {
    client.call('farm.status', {}).then(
      (status) => set({ status }),
      () => undefined,
    );
  }, 700);
  const reload = throttle(() => get().reloadVisible(), 500);

  return {
    client,
    jobs: {},
    progress: {},
    instances: {},
    connection: 'connecting',
    info: null,
    status: null,
    liveTick: 0,
    applyBatch(batch) {
      const s = get();
      const { next, effects } = applyEvents(s, batch);
      set({ ...next, ...(effects.jobsTouched ? { liveTick: s.liveTick + 1 } : {}) });
      if (effects.countsStale) refreshStatus();
      if (effects.listStale) reload();
    },
    async refetchAll() {
      try {
        const [info, status] = await Promise.all([client.info(), client.call('farm.status', {})]);
        const instances: Record<string, InstanceView> = {};
        for (const i of status.instances) instances[i.id] = i;
        set((s) => ({ info, status, instances, liveTick: s.liveTick + 1 }));
        get().reloadVisible();
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
    refreshStatus,
    async setFarmRunning(running) {
      try {
        const status = await client.call(running ? 'farm.resume' : 'farm.stop', {});
        set({ status });
        get().notify('info', running ? 'Farm resumed: dispatching again.' : 'Farm stopped: running prompts were interrupted and requeued.');
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
  };
}
