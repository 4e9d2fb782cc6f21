/**
 * Measurement hooks on a running engine, without editing it: dispatch decisions (the scheduler's
 * `onDispatch`), job completions (job.changed events), timed decision passes, event-loop delay
 * and memory samples.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Engine } from '../../../electron/engine/engine.js';
import { absNow } from './stats.js';

export interface EngineProbe {
  /** jobId → absolute time its claim committed (onDispatch). */
  dispatchedAt: Map<string, number>;
  /** jobId → absolute time the engine published it completed. */
  completedAt: Map<string, number>;
  /** Durations (ms) of decision passes that ran while at least one instance was free. */
  passMs: number[];
  completedCount(): number;
  loop: IntervalHistogram;
  rss: number[];
  heap: number[];
  stop(): void;
}

/**
 * `keepTimes: false` (the soak) keeps no per-job timestamps: those maps grow with every job and
 * would be counted as the engine's memory growth.
 */
export function probeEngine(
  engine: Engine,
  o: { timePasses?: boolean; memEveryMs?: number; keepTimes?: boolean } = {},
): EngineProbe {
  const s = engine.scheduler;
  if (!s) throw new Error('start the scheduler first');
  const dispatchedAt = new Map<string, number>();
  const completedAt = new Map<string, number>();
  const passMs: number[] = [];
  let completed = 0;
  const prevHook = s.onDispatch;
  const keep = o.keepTimes ?? true;
  s.onDispatch = (jobId, instanceId) => {
    if (keep) dispatchedAt.set(jobId, absNow());
    prevHook?.(jobId, instanceId);
  };
  const off = engine.events.on('job.changed', ({ job }) => {
    if (!keep || job.state !== 'completed') return;
    if (!completedAt.has(job.id)) {
      completedAt.set(job.id, absNow());
      completed++;
    }
  });
  const original = s.dispatchPass;
  if (o.timePasses) {
    s.dispatchPass = function timed(this: typeof s) {
      const t0 = performance.now();
      original.call(this);
      passMs.push(performance.now() - t0);
    };
  }
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const rss: number[] = [];
  const heap: number[] = [];
  const sample = () => {
    const m = process.memoryUsage();
    rss.push(m.rss);
    heap.push(m.heapUsed);
  };
  sample();
  const timer = setInterval(sample, o.memEveryMs ?? 500);
  return {
    dispatchedAt,
    completedAt,
    passMs,
    loop,
    rss,
    heap,
    // Without the per-job map, the store counts (the state door lets a job complete once).
    completedCount: () =>
      keep ? completed : (engine.db.one("SELECT COUNT(*) AS n FROM jobs WHERE state = 'completed'") as { n: number }).n,
    stop() {
      clearInterval(timer);
      sample();
      loop.disable();
      off();
      s.onDispatch = prevHook;
      if (o.timePasses) s.dispatchPass = original;
    },
  };
}
