// Public option types of the simulator and the defaults they resolve to.

import { DEFAULT_NODE_CLASSES } from './node-catalog.js';
import type { VramNeed } from './vram.js';

export interface DurationOptions {
  /** Execution time of one prompt, spread over the nodes that actually run (default 30 ms). */
  fixedMs?: number;
  /** Extra time per executed node of that class (a KSampler's share is split into its steps). */
  perClassMs?: Record<string, number>;
  /** Extra random time per prompt, uniform in [min, max], from a seeded generator. */
  randomMs?: [number, number];
  seed?: number;
  /** Extra time when a checkpoint differs from the one last loaded on this instance. */
  modelLoadMs?: number;
}

export interface SimInstanceOptions {
  name?: string;
  /** 0 = ask the OS for a free port. */
  port?: number;
  /** Defaults to 127.0.0.1; the simulator is meant for loopback only. */
  host?: string;
  gpuName?: string;
  vramTotalGb?: number;
  /** VRAM held by other processes on the GPU (shows as "not usable"; too much makes samplers OOM). */
  vramOtherGb?: number;
  /**
   * Each checkpoint's true VRAM need (weights + activations at 1024², scaled by the latent's
   * width × height × batch), whatever a template declares; a checkpoint not named: 6.5 + 2 GB.
   */
  vramNeeds?: Record<string, VramNeed>;
  /** '0.3' = ComfyUI 0.3.64 as recorded; 'new' = current mainline rules (UUID prompt_id, missing_node_type, create_time). */
  protocol?: '0.3' | 'new';
  nodeClasses?: string[];
  /** Loader combo lists: `checkpoints` feeds CheckpointLoaderSimple/ImageOnlyCheckpointLoader.ckpt_name, `loras` LoraLoader.lora_name. */
  models?: Record<string, string[]>;
  duration?: DurationOptions;
  /**
   * Time from `execution_success` to the history write (ComfyUI's worker thread runs
   * `PromptQueue.task_done` a moment after it queued the message); until then GET /history misses
   * the entry and GET /queue still lists the prompt as running. Then `status`, then
   * `executing {node:null}`. A number is fixed; `[min, max]` is uniform, drawn from its own stream
   * seeded by `duration.seed`. 0 writes history in the same turn as success. Default 1–6 ms, a
   * loaded server's window (DEFAULT_HISTORY_DELAY_MS); the recordings' own range is
   * RECORDED_HISTORY_DELAY_MS.
   */
  historyDelayMs?: number | [number, number];
  /** Behaviour words, one per received prompt in arrival order; afterwards 'ok'. */
  script?: string[];
  /** Where SaveImage writes; default a temp dir removed on close. */
  outputDir?: string;
  /**
   * Files already in the instance's input folder when it starts (name there → file to copy), as a
   * workstation's ComfyUI input folder holds images a LoadImage can name without an upload.
   */
  inputFiles?: Record<string, string>;
  /**
   * Serve ComfyUI's log (`/internal/logs`, `/internal/logs/raw`; comfyui-protocol.md §15). Default
   * true; false answers 404 there, as an older ComfyUI or a proxy that does not forward `/internal/`.
   */
  serverLog?: boolean;
  /** The server's zone for its log stamps, minutes east of UTC (default the host's, as Python's `datetime.now()`). */
  logUtcOffsetMin?: number;
}

export interface ResolvedOptions {
  name: string;
  port: number;
  host: string;
  gpuName: string;
  vramTotalGb: number;
  vramOtherGb: number;
  vramNeeds: Record<string, VramNeed>;
  protocol: '0.3' | 'new';
  nodeClasses: string[];
  models: Record<string, string[]>;
  duration: Required<Omit<DurationOptions, 'randomMs'>> & { randomMs: [number, number] | null };
  historyDelayMs: [number, number];
  script: string[];
  outputDir: string | undefined;
  inputFiles: Record<string, string>;
  serverLog: boolean;
  logUtcOffsetMin: number;
}

export const DEFAULT_MODELS: Record<string, string[]> = {
  // The SDXL and SVD checkpoints resources/templates name; both loaders list the same folder, as in ComfyUI.
  checkpoints: ['sd_xl_base_1.0.safetensors', 'sd15/v1-5-pruned-emaonly.safetensors', 'svd_xt_1_1.safetensors'],
  loras: ['detail_tweaker_xl.safetensors'],
};

/**
 * The recorded gap between `execution_success` and the `status` that follows the history write:
 * 0.0–0.8 ms over the 37 successful runs in test/fixtures/comfyui-recorded/ (README.md) — tiny
 * CPU graphs on an idle server.
 */
export const RECORDED_HISTORY_DELAY_MS: [number, number] = [0, 0.8];

/**
 * The default window is wider than the recordings: a loaded real server was seen to answer /queue
 * with the prompt still there about one prompt in five, so tests and the demo meet the race often.
 */
export const DEFAULT_HISTORY_DELAY_MS: [number, number] = [1, 6];

function historyDelay(v: number | [number, number] | undefined): [number, number] {
  const [min, max] = v === undefined ? DEFAULT_HISTORY_DELAY_MS : typeof v === 'number' ? [v, v] : v;
  if (!(Number.isFinite(min) && Number.isFinite(max) && min >= 0 && max >= min)) {
    throw new Error(
      `historyDelayMs must be a number ≥ 0 or [min, max] with 0 ≤ min ≤ max; got ${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}`,
    );
  }
  return [min, max];
}

/** The CLI form `A` (fixed) or `A,B` (uniform in [A, B]), checked like the option. */
export function parseHistoryDelay(text: string): number | [number, number] {
  const n = text.split(',').map((s) => Number(s.trim()));
  if (n.length === 1) return historyDelay(n[0]!)[0];
  if (n.length === 2) return historyDelay([n[0]!, n[1]!]);
  throw new Error(`history delay takes A or A,B (ms); got '${text}'`);
}

export function resolveOptions(o: SimInstanceOptions = {}): ResolvedOptions {
  return {
    name: o.name ?? 'sim',
    port: o.port ?? 0,
    host: o.host ?? '127.0.0.1',
    gpuName: o.gpuName ?? 'NVIDIA GeForce RTX 4090',
    vramTotalGb: o.vramTotalGb ?? 24,
    vramOtherGb: o.vramOtherGb ?? 0,
    vramNeeds: o.vramNeeds ?? {},
    protocol: o.protocol ?? '0.3',
    nodeClasses: o.nodeClasses ?? DEFAULT_NODE_CLASSES,
    models: o.models ?? DEFAULT_MODELS,
    duration: {
      fixedMs: o.duration?.fixedMs ?? 30,
      perClassMs: o.duration?.perClassMs ?? {},
      randomMs: o.duration?.randomMs ?? null,
      seed: o.duration?.seed ?? 1,
      modelLoadMs: o.duration?.modelLoadMs ?? 0,
    },
    historyDelayMs: historyDelay(o.historyDelayMs),
    script: o.script ?? [],
    outputDir: o.outputDir,
    inputFiles: o.inputFiles ?? {},
    serverLog: o.serverLog ?? true,
    logUtcOffsetMin: o.logUtcOffsetMin ?? -new Date().getTimezoneOffset(),
  };
}
