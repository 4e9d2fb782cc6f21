/**
 * The pools the farm dispatches to beside its LAN ComfyUI servers, in pass order: each a
 * WorkerPool (pools/worker-pool.ts) the scheduler calls through that one interface. A new kind of
 * workstation is one folder under pools/ and one line here.
 */
import type { StoredTemplate } from '../store/template-store.js';
import type { ConcludeDeps } from '../pools/attempt/deps.js';
import { RunpodPool } from '../pools/runpod/runpod-pool.js';
import type { WorkerPool } from '../pools/worker-pool.js';

export interface FarmPoolDeps extends ConcludeDeps {
  template: (id: number) => StoredTemplate;
  /** The RunPod API key (null: none configured). */
  runpodKey: () => string | null;
  /** A runner ended: re-arm the retry timer and decide again. */
  ended: () => void;
  kick: () => void;
  /** When the farm last began dispatching (start or resume), null while paused or stopped: burst waits count from it. */
  dispatchingSince: () => number | null;
}

export function farmPools(d: FarmPoolDeps): readonly WorkerPool[] {
  return [new RunpodPool({ ...d, apiKey: d.runpodKey })];
}
