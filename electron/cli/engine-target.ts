/**
 * Which engine a one-shot command talks to. When an engine runs the data folder's farm (it holds
 * the folder's lock: the desktop app, `serve`, `run` — electron/engine/lock/), the command goes
 * through that engine, so the farm decides at once (an imported job is dispatched now, not at its
 * next look at the store) and recovery stays with the one engine that runs the farm. When none
 * runs, the command opens the database itself. Commands that hand over this terminal's paths or
 * write files as this user (`here`) always open it themselves.
 */
import { Engine } from '../engine/engine.js';
import { engineLockHolder } from '../engine/lock/engine-lock.js';
import type { EngineApi } from './context.js';
import { RemoteEngine, type ReachableHolder } from './remote-engine.js';

/** A holder that took the lock a moment ago writes its control address right after: wait this long for it. */
const RECORD_WAIT_MS = 5_000;
const RECORD_POLL_MS = 50;

export interface EngineTarget {
  api: EngineApi;
  /** The engine running the farm that answers, or null when this command opened the database itself. */
  via: ReachableHolder | null;
  close(): Promise<void>;
}

/** The running farm's engine, once its record says how to reach it; null when no engine runs the farm (any more). */
async function reachableHolder(dataDir: string): Promise<ReachableHolder | 'silent' | null> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  for (;;) {
    const h = engineLockHolder(dataDir);
    if (!h.held) return null;
    if (h.record?.control) return h.record as ReachableHolder;
    if (Date.now() > deadline) return 'silent';
    await new Promise((r) => setTimeout(r, RECORD_POLL_MS));
  }
}

export async function openTarget(
  dataDir: string,
  o: { here?: boolean; databaseUrl?: string; warn?: (message: string) => void } = {},
): Promise<EngineTarget> {
  if (!o.here) {
    const holder = await reachableHolder(dataDir);
    if (holder === 'silent') {
      // Held, yet it never said where it listens (an engine of an older Shotfarm?): the store is still safe to use directly.
      o.warn?.(
        `an engine holds the farm on ${dataDir} but does not say how to reach it; this command uses the database directly`,
      );
    } else if (holder) {
      return { api: new RemoteEngine(holder), via: holder, close: async () => undefined };
    }
  }
  // The engine reads no environment of its own: this host passes it in (engine/engine-env.ts).
  const engine = new Engine({ dataDir, databaseUrl: o.databaseUrl, env: process.env });
  return { api: engine, via: null, close: () => engine.close() };
}
