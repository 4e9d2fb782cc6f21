/**
 * Whether the engine's thread had a core: Linux's scheduler statistics (/proc/<pid>/task/<tid>/
 * schedstat: nanoseconds on a CPU, nanoseconds runnable but waiting in a run queue) of the
 * engine's main thread and of every simulator process's threads, sampled every 20 ms by a worker
 * thread — its timers keep time while the engine's thread is busy, which is exactly when the
 * figures matter. On a two-core machine the simulators share the engine's cores, as real
 * workstations (other machines) never do: "waiting for a core" is what that sharing cost the
 * engine's thread in a window, read beside how long it ran. Elsewhere than Linux: null.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface CoreSample {
  /** Epoch ms (timeOrigin + now, as absNow). */
  t: number;
  /** The engine's main thread: ns on a core, ns waiting for one. */
  engineRun: number;
  engineWait: number;
  /** The engine's whole process, every thread (10 ms ticks, in ns). */
  processRun: number;
  /** Every simulator process together (10 ms ticks, in ns). */
  simRun: number;
  /** The machine's idle time over all its cores (/proc/stat, ns; its ticks are 10 ms). */
  idle: number;
  /** This sampler's own thread, ns on a core (what measuring cost). */
  selfRun: number;
}

export interface CoreWindow {
  wallMs: number;
  /** The engine's main thread on a core, and runnable but waiting for one (ms). */
  engineRunMs: number;
  engineWaitMs: number;
  /** Cores over the window (CPU ÷ wall time): the engine's other threads, the simulators, the machine left idle. */
  otherCores: number;
  simCores: number;
  idleCores: number;
  /** This sampler's own share of a core. */
  samplerCores: number;
}

// Plain JavaScript: a worker's code must load without the TypeScript loader. Eight small reads a
// sample: whole processes from /proc/<pid>/stat (utime + stime, 10 ms ticks), one thread's
// schedstat (ns) for the engine's main thread and for this sampler itself.
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync, readlinkSync } = require('node:fs');
const schedstat = (path) => { try { const f = readFileSync(path, 'utf8').split(' '); return [Number(f[0]), Number(f[1])]; } catch { return [0, 0]; } };
const ticksNs = (pid) => {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 1e7;
  } catch { return 0; }
};
// A synchronous call runs on the calling thread: this names the sampler's own.
const selfTid = readlinkSync('/proc/thread-self').split('/').pop();
const main = '/proc/' + workerData.pid + '/task/' + workerData.pid + '/schedstat';
const idle = () => {
  const f = readFileSync('/proc/stat', 'utf8').split('\\n')[0].trim().split(/ +/);
  return (Number(f[4]) + Number(f[5])) * 1e7; // idle + iowait
};
const samples = [];
const take = () => {
  const [run, wait] = schedstat(main);
  const [selfRun] = schedstat('/proc/' + workerData.pid + '/task/' + selfTid + '/schedstat');
  let sim = 0;
  for (const pid of workerData.simPids) sim += ticksNs(pid);
  samples.push({ t: performance.timeOrigin + performance.now(), engineRun: run, engineWait: wait, processRun: ticksNs(workerData.pid), simRun: sim, idle: idle(), selfRun });
};
take();
parentPort.postMessage('ready');
const timer = setInterval(take, 25);
// Bounded: a bench that failed before asking for the samples does not leave this running.
setTimeout(() => clearInterval(timer), 15 * 60 * 1000).unref();
parentPort.on('message', () => { clearInterval(timer); take(); parentPort.postMessage(samples); });
`;

export interface CoreWaitSampler {
  /**
   * Resolves once the first sample is taken (a worker takes a while to start: await it before what
   * is measured), or once the sampler failed — then `stop` gives no samples and the figures say
   * "not measured": an optional figure never costs the run.
   */
  ready: Promise<void>;
  /** Stops sampling; the samples taken, oldest first. */
  stop(): Promise<CoreSample[]>;
}

export function sampleCoreWait(simPids: readonly number[]): CoreWaitSampler | null {
  if (process.platform !== 'linux' || !existsSync(`/proc/${process.pid}/task/${process.pid}/schedstat`)) return null;
  const worker = new Worker(SAMPLER, { eval: true, workerData: { pid: process.pid, simPids: [...simPids] } });
  // It never holds the process open by itself; only while it starts and while its samples are asked for.
  let failed = false;
  let onFail = (): void => undefined;
  // An error, or an exit before it answered (stop terminates it only after its samples came).
  const fail = (): void => {
    failed = true;
    onFail();
  };
  worker.once('error', fail);
  worker.once('exit', fail);
  const ready = new Promise<void>((resolve) => {
    onFail = resolve;
    worker.once('message', () => {
      worker.unref();
      resolve();
    });
  });
  return {
    ready,
    stop: async () => {
      await ready;
      if (failed) return [];
      worker.ref();
      return new Promise<CoreSample[]>((resolve) => {
        onFail = () => resolve([]);
        worker.once('message', (samples: CoreSample[]) => {
          void worker.terminate();
          resolve(samples);
        });
        worker.postMessage('stop');
      });
    },
  };
}

/** The sampler's own CPU over its samples (ms): it runs in the engine's process, whose CPU figures should leave it out. */
export function samplerCpuMs(samples: readonly CoreSample[]): number {
  const first = samples[0];
  const last = samples[samples.length - 1];
  return first && last ? (last.selfRun - first.selfRun) / 1e6 : 0;
}

type Counter = Exclude<keyof CoreSample, 't'>;
const COUNTERS: readonly Counter[] = ['engineRun', 'engineWait', 'processRun', 'simRun', 'idle', 'selfRun'];

/** The counters at epoch time `t`, read between the two samples around it (samples oldest first, t inside them). */
function at(samples: readonly CoreSample[], t: number): CoreSample {
  let i = 1;
  while (i < samples.length - 1 && (samples[i] as CoreSample).t < t) i++;
  const a = samples[i - 1] as CoreSample;
  const b = samples[i] as CoreSample;
  const f = b.t === a.t ? 1 : (t - a.t) / (b.t - a.t);
  const out = { t } as CoreSample;
  for (const k of COUNTERS) out[k] = a[k] + f * (b[k] - a[k]);
  return out;
}

/**
 * The figures between two epoch times, each end read between the samples around it (a window
 * reaching past the samples is cut to them; null when nothing of it is left).
 */
export function coreWindow(samples: readonly CoreSample[], from: number, to: number): CoreWindow | null {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last) return null;
  const lo = Math.max(from, first.t);
  const hi = Math.min(to, last.t);
  if (hi <= lo) return null;
  const a = at(samples, lo);
  const b = at(samples, hi);
  const d = (k: Counter) => (b[k] - a[k]) / 1e6;
  const wallMs = hi - lo;
  return {
    wallMs,
    engineRunMs: d('engineRun'),
    engineWaitMs: d('engineWait'),
    // The process's ticks less its main thread and this sampler: V8's helpers, libuv's pool.
    otherCores: Math.max(0, d('processRun') - d('engineRun') - d('selfRun')) / wallMs,
    simCores: d('simRun') / wallMs,
    idleCores: d('idle') / wallMs,
    samplerCores: d('selfRun') / wallMs,
  };
}

/** The engine thread's run and wait over some wall time. */
export type CoreSum = Pick<CoreWindow, 'wallMs' | 'engineRunMs' | 'engineWaitMs'>;

/** Several windows (the loop's late turns) summed: their wall time and the engine thread's run and wait in them. */
export function coreWindows(samples: readonly CoreSample[], windows: readonly (readonly [number, number])[]): CoreSum {
  const sum = { wallMs: 0, engineRunMs: 0, engineWaitMs: 0 };
  for (const [from, to] of windows) {
    const w = coreWindow(samples, from, to);
    if (!w) continue;
    sum.wallMs += w.wallMs;
    sum.engineRunMs += w.engineRunMs;
    sum.engineWaitMs += w.engineWaitMs;
  }
  return sum;
}

const ms = (n: number): string => `${Math.round(n).toLocaleString('en-US')} ms`;

/** "on a core 347 ms, waiting for one 165 ms (31 %)": the words both lines share. */
const runAndWait = (w: CoreSum): string =>
  `the engine's thread on a core ${ms(w.engineRunMs)}, waiting for one ${ms(w.engineWaitMs)} (${Math.round((100 * w.engineWaitMs) / w.wallMs)} %)`;

/** The loop's late turns summed (coreWindows), in words. */
export function coreWindowsLine(w: CoreSum | null): string {
  if (!w) return 'not measured (no scheduler statistics on this system)';
  if (w.wallMs === 0) return 'no turn was 50 ms late';
  return `${ms(w.wallMs)} in all: ${runAndWait(w)}`;
}

/** "524 ms: the engine's thread on a core 347 ms, waiting for one 165 ms (31 %); meanwhile the engine's other threads 0.40 cores, the simulators 0.63, idle 0.21; this measure 0.023". */
export function coreWindowLine(w: CoreWindow | null): string {
  if (!w) return 'not measured (no scheduler statistics on this system, or the window was shorter than a sample)';
  return `${ms(w.wallMs)}: ${runAndWait(w)}; meanwhile the engine's other threads ${w.otherCores.toFixed(2)} cores, the simulators ${w.simCores.toFixed(2)}, idle ${w.idleCores.toFixed(2)}; this measure ${w.samplerCores.toFixed(3)}`;
}
