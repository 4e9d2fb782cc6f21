/**
 * What the dispatcher knows about one LAN ComfyUI instance at decision time: the registry builds
 * it (instance-registry.ts snapshot), the scheduler's pure policy (scheduler/policy.ts) reads it.
 */

export interface InstanceSnapshot {
  id: string;
  name: string;
  tags: readonly string[];
  maxConcurrency: number;
  running: number;
  /** VRAM needed by the jobs running there now (GB). */
  runningVramGb: number;
  /** The largest need among them (GB; 0 when none runs): what the best slot that frees gives back. */
  largestRunningVramGb: number;
  totalVramBytes: number | null;
  /** The GPU model ("NVIDIA GeForce RTX 4090"; null: not known yet), for the learned VRAM needs. */
  gpuName?: string | null;
  /** Held by other processes on the GPU: not usable by ComfyUI. */
  otherVramBytes: number;
  /** Prompts in the server's own queue (running + pending), other clients' included. */
  serverQueue: number;
  lastCheckpoint: string | null;
  vramOverrides: Readonly<Record<string, number>>;
  /** Relative GPU speed, higher is faster (used last, as a tie-break). */
  speed: number;
  /** The lowest priority among the prompts running there (null: none runs). */
  runningPriority?: number | null;
  /** The prompt queued on the server behind them (prefetch), if any; `displacing` while it is asked to give its place. */
  waiting?: { attemptId: string; priority: number; rank: number; displacing: boolean } | null;
  /** When the first prompt running there is expected to end (ms, the engine's clock; null: no run estimate yet). */
  freesAt?: number | null;
  /** The highest priority among the prompts sent there that have not started yet (null: none). */
  startingPriority?: number | null;
}
