/** The renderer's one store, built around a client (transport) and shared through React context. */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ShotfarmClient } from '../client/client.js';
import { startEventIntake } from './event-intake.js';
import { createJobsSlice } from './jobs-slice.js';
import { createLiveSlice } from './live-slice.js';
import { createQueueSlice } from './queue-slice.js';
import { createSelectionSlice } from './selection-slice.js';
import type { AppState, SetState } from './types.js';
import { createUiSlice } from './ui-slice.js';

/** The store as the app sees it: its `setState` refuses the job map's keys, like every slice's but the jobs slice's. */
export type AppStore = Omit<StoreApi<AppState>, 'setState'> & { setState: SetState };

export function createAppStore(client: ShotfarmClient): AppStore {
  return createStore<AppState>()((set, get) => ({
    // The one slice given the store's own setter: it writes the job map (jobs-slice.ts).
    ...createJobsSlice(set, get, client),
    ...createLiveSlice(set, get, client),
    ...createQueueSlice(set, get, client),
    ...createSelectionSlice(set, get, client),
    ...createUiSlice(set, get),
  }));
}

export function engineRestartNotice(restarts: number): string {
  return `The engine restarted (${restarts}); the farm reconnected its running attempts.`;
}

/** Connects the store to the client's events and connection; returns a stop function. */
export function connectStore(store: AppStore, client: ShotfarmClient): () => void {
  const stopIntake = startEventIntake(client, (batch) => store.getState().applyBatch(batch));
  const stopConn = client.onConnection((connection) => {
    const was = store.getState().connection;
    store.setState({ connection });
    // Events may have been missed while offline: reload what the screens show.
    if (connection === 'online' && was !== 'online') void store.getState().refetchAll();
  });
  // Desktop: a replaced engine process is a reconnect in all but name (events were lost meanwhile).
  const stopRestart = client.shell?.onEngineRestarted(({ restarts }) => {
    store.getState().notify('info', engineRestartNotice(restarts));
    void store.getState().refetchAll();
  });
  return () => {
    stopIntake();
    stopConn();
    stopRestart?.();
  };
}

export const StoreContext = createContext<AppStore | null>(null);

export function useApp<T>(selector: (s: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useApp outside <StoreContext.Provider>');
  return useStore(store, selector);
}

export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore outside <StoreContext.Provider>');
  return store;
}
