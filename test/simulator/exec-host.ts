// What the executor needs from the simulated ComfyUI process (SimCore): its queue, socket hub,
// node classes, cache, VRAM and clock. Kept apart so the run's parts depend on this contract, not
// on each other or on the core.

import type { NodeClass } from './node-catalog.js';
import type { ImageDirs } from './images.js';
import type { SimValue } from './graph.js';
import type { PromptQueue } from './prompt-queue.js';
import type { WsHub } from './ws-hub.js';
import type { VramModel } from './vram.js';
import type { SimServerLog } from './server-log.js';

export interface CacheEntry {
  value: SimValue;
  ui: Record<string, unknown> | null;
}

/** Thrown by `sleep` when the instance crashes or closes under a running prompt. */
export class Aborted extends Error {}

export interface RunState {
  clientId: string | null;
  lastNodeId: string | null;
  promptId: string | null;
}

export interface ExecHost {
  hub: WsHub;
  queue: PromptQueue;
  classes: Map<string, NodeClass>;
  dirs: ImageDirs;
  vram: VramModel;
  cache: Map<string, CacheEntry>;
  run: RunState;
  /** The server's stdout/stderr as `/internal/logs/raw` serves it. */
  log: SimServerLog;
  /** Resolves after `ms` (early if `interruptible` and the interrupt flag is set); rejects with Aborted on crash. */
  sleep(ms: number, interruptible: boolean): Promise<void>;
  interrupted(): boolean;
  nodeMs(classType: string, nodesInRun: number, slow: boolean): number;
  modelLoadMs(): number;
  /** Draws the time from `execution_success` to the history write (seeded). */
  historyDelayMs(): number;
  /** Runs `promptId`'s `work` `ms` from now (to a fraction of a ms, never interrupted); requests after that time see it done. */
  runAfter(ms: number, promptId: string, work: () => void): Promise<void>;
  /** Tells the core's read-only tap that a history entry was written. */
  historyWritten(promptId: string): void;
  queueInfo(): Record<string, unknown>;
  crash(): void;
}

export type Outcome = 'success' | 'error' | 'interrupted';
