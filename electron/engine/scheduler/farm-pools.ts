/**
 * The pools the farm dispatches to, in pass order: the LAN ComfyUI servers first, then the RunPod
 * endpoints (a burst pool sends work only when the LAN cannot take it). Each is a WorkerPool
 * (pools/worker-pool.ts) the scheduler calls through that one interface. A new kind of workstation
 * is one folder under pools/ and one line here.
 */
import type { Announce } from '../announcer.js';
import type { StoredTemplate } from '../store/template-store.js';
import type { ConcludeDeps } from '../pools/attempt/deps.js';
import { ComfyLanPool, type LanPolicy } from '../pools/comfy-lan/comfy-lan-pool.js';
import { RunpodPool } from '../pools/runpod/runpod-pool.js';
import type { WorkerPool } from '../pools/worker-pool.js';

export interface FarmPoolDeps extends ConcludeDeps, LanPolicy {
  template: (id: number) => StoredTemplate;
  /** The RunPod API key (null: none configured). */
  runpodKey: () => string | null;
  /** Announced at once, not merged into the tick. */
  announceNow: Announce;
  /** A runner ended: re-arm the retry timer and decide again. */
  ended: () => void;
  kick: () => void;
  /** When the farm last became able to dispatch (start, resume, a storage hold's end), null while paused, stopped or held: burst waits count from it. */
  dispatchingSince: () => number | null;
}

/** Every pool in pass order, and the LAN pool by its own type (what only it tells: node lists, instance facts). */
export function farmPools(d: FarmPoolDeps): { lan: ComfyLanPool; all: readonly WorkerPool[] } {
  const lan = new ComfyLanPool(d);
  return { lan, all: [lan, new RunpodPool({ ...d, apiKey: d.runpodKey })] };
}
