/**
 * Figures a noisy machine cannot fake: baselines measured in the same run as the figures they
 * stand beside, and the machine's load over the run. A bench measures its baselines first, watches
 * the load while it works, and prints each timing figure with `judged()`: the value, its ratio to
 * the baseline that bounds it from below (a bare SQLite commit, a loopback WebSocket round trip,
 * the simulator's own gap between two prompts already queued, the idle event loop), and PASS/MISS
 * only when the machine was not under load. Under load (the 1-minute load average was at or above
 * the core count before the run, or other processes used at least one core during it, or the
 * hypervisor stole ≥ 10 % of the CPU) the figure says so and is not judged on its absolute value:
 * its ratio is what a reader compares.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { WebSocket, WebSocketServer } from 'ws';
import { RECORDED_HISTORY_DELAY_MS } from '../../simulator/options.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { FIXTURE_TEMPLATES } from './bench-engine.js';
import { startRemoteFarm } from './remote-farm.js';
import { gapsBetween } from './sim-events.js';
import { median, round, sleep, until } from './stats.js';
import { fmt, type Figure } from './types.js';

export interface Baselines {
  /** One single-row INSERT committed in a temp SQLite file with the engine's pragmas (WAL, synchronous FULL), median ms. */
  sqliteCommitMs: number;
  /** One text message echoed over a loopback WebSocket, median ms. */
  wsRttMs: number;
  /** The simulator alone: execution end → next execution start with the next prompt already queued, median ms. */
  simGapMs: number;
  /** This process's event-loop delay p99 while idle for half a second (timer resolution + scheduling noise), ms. */
  loopIdleP99Ms: number;
  /** A fixed piece of JavaScript work (JSON round trips of a job-sized object), median ms: this run's CPU speed. */
  cpuUnitMs: number;
}

/** A fixed CPU-bound unit: 200 JSON round trips of an object the size of a job's view. */
export function cpuUnitMs(n = 30): number {
  const job = {
    id: 'j'.repeat(26),
    state: 'running',
    parameters: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, `value ${i}`.repeat(4)])),
    attempts: Array.from({ length: 3 }, (_, i) => ({ id: i, at: 1_700_000_000_000 + i, reason: 'none' })),
  };
  const times: number[] = [];
  let sink = 0;
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) sink += (JSON.parse(JSON.stringify(job)) as { attempts: unknown[] }).attempts.length;
    times.push(performance.now() - t0);
  }
  if (sink < 0) throw new Error('unreachable');
  return median(times);
}

/** Bare commits of one small row each, with the engine's durability settings. */
export function sqliteCommitMs(n = 60): number {
  const tmp = makeTempDir('shotfarm-baseline-');
  const db = new Database(join(tmp.path, 'b.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      db.transaction(() => ins.run(`row ${i}`))();
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    db.close();
    tmp.cleanup();
  }
}

/** Round trips of a small text frame to an echo server on loopback. */
export async function wsRttMs(n = 200): Promise<number> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (s) => s.on('message', (m, binary) => s.send(m, { binary })));
  const { port } = server.address() as { port: number };
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        ws.once('message', () => resolve());
        ws.send(`{"type":"ping","n":${i}}`);
      });
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    ws.terminate();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** One simulator instance in its own process, `n` short prompts posted at once: its own gap between two. */
export async function simPreQueuedGapMs(n = 10): Promise<number> {
  const tpl = JSON.parse(readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8')) as {
    workflow: Record<string, { inputs: Record<string, unknown> }>;
  };
  const farm = await startRemoteFarm([
    { name: 'base0', duration: { fixedMs: 20 }, historyDelayMs: RECORDED_HISTORY_DELAY_MS },
  ]);
  try {
    const url = farm.urls[0] as string;
    for (let i = 0; i < n; i++) {
      const prompt = structuredClone(tpl.workflow);
      (prompt['6'] as { inputs: Record<string, unknown> }).inputs.text = `baseline ${i}`;
      // A client_id (no socket behind it) so the run's messages go through the hub, where they are timed.
      const res = await fetch(`${url}/prompt`, {
        method: 'POST',
        body: JSON.stringify({ prompt, prompt_id: randomUUID(), client_id: 'baseline' }),
      });
      if (!res.ok) throw new Error(`POST /prompt ${i}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    await until(async () => (await farm.events(false)).filter((e) => e.k === 'H').length >= n, 10_000, 20);
    return median(gapsBetween(await farm.events(true), 'E', 'S'));
  } finally {
    await farm.close();
  }
}

export async function loopIdleP99Ms(ms = 500): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  await sleep(ms);
  h.disable();
  return h.percentile(99) / 1e6;
}

/** All four, one after another (a couple of seconds, most of it the simulator child starting). */
export async function measureBaselines(): Promise<Baselines> {
  const loop = await loopIdleP99Ms();
  return {
    sqliteCommitMs: sqliteCommitMs(),
    wsRttMs: await wsRttMs(),
    simGapMs: await simPreQueuedGapMs(),
    loopIdleP99Ms: loop,
    cpuUnitMs: cpuUnitMs(),
  };
}

export function baselineLine(b: Baselines): string {
  return `SQLite commit ${fmt(b.sqliteCommitMs, 3)} ms, WebSocket round trip ${fmt(b.wsRttMs, 3)} ms, simulator pre-queued gap ${fmt(b.simGapMs, 2)} ms, idle loop p99 ${fmt(b.loopIdleP99Ms, 2)} ms, CPU unit ${fmt(b.cpuUnitMs, 2)} ms`;
}

/** Machine-wide CPU ticks from /proc/stat: busy (all but idle and iowait) and steal; null off Linux. */
function procStat(): { busy: number; steal: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] as string;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle (3) and iowait (4).
    const at = (i: number): number => v[i] ?? 0;
    return {
      busy: at(0) + at(1) + at(2) + at(5) + at(6),
      steal: at(7),
      total: v.slice(0, 8).reduce((a, b) => a + b, 0),
    };
  } catch {
    return null;
  }
}

export interface LoadReport {
  cores: number;
  /** 1-minute load average when the watch started (before the bench's own work). */
  loadAvgBefore: number;
  /** Cores' worth of CPU used by processes other than the bench's own over the window (null off Linux). */
  othersCores: number | null;
  /** Share of the machine's CPU time stolen by the hypervisor over the window, % (null off Linux). */
  stealPct: number | null;
  underLoad: boolean;
  /** Why it counts as under load, or 'quiet'. */
  why: string;
}

const TICK_MS = 10;

/**
 * Watches the machine over a window. `stop(oursMs)` takes the CPU the bench's own processes used in
 * the window (the engine and its simulator children), so the rest of the machine's busy time is
 * other people's work.
 */
export function watchLoad(): { stop(oursCpuMs: number): LoadReport } {
  const cores = cpus().length;
  const loadAvgBefore = loadavg()[0] as number;
  const s0 = procStat();
  const t0 = performance.now();
  return {
    stop(oursCpuMs) {
      const s1 = procStat();
      const wall = performance.now() - t0;
      let othersCores: number | null = null;
      let stealPct: number | null = null;
      if (s0 && s1 && wall > 0) {
        othersCores = Math.max(0, ((s1.busy - s0.busy) * TICK_MS - oursCpuMs) / wall);
        const total = s1.total - s0.total;
        stealPct = total > 0 ? ((s1.steal - s0.steal) / total) * 100 : 0;
      }
      const reasons: string[] = [];
      if (loadAvgBefore >= cores)
        reasons.push(`load average ${round(loadAvgBefore, 1)} ≥ ${cores} cores before the run`);
      if (othersCores !== null && othersCores >= 1) reasons.push(`other processes used ${round(othersCores, 1)} cores`);
      if (stealPct !== null && stealPct >= 10) reasons.push(`${round(stealPct, 0)} % CPU stolen`);
      return {
        cores,
        loadAvgBefore,
        othersCores,
        stealPct,
        underLoad: reasons.length > 0,
        why: reasons.length ? reasons.join('; ') : 'quiet',
      };
    },
  };
}

export function loadLine(l: LoadReport): string {
  const others = l.othersCores === null ? 'n/a' : `${round(l.othersCores, 2)} cores`;
  const steal = l.stealPct === null ? 'n/a' : `${round(l.stealPct, 1)} %`;
  return `${l.underLoad ? 'UNDER LOAD' : 'quiet'}: load average before ${round(l.loadAvgBefore, 2)} on ${l.cores} cores, other processes ${others}, steal ${steal}${l.underLoad ? ` (${l.why})` : ''}`;
}

export interface Base {
  /** What the baseline is, e.g. "SQLite commit". */
  label: string;
  ms: number;
}

/**
 * A timing figure beside its baseline: "12.3 ms = ×41 SQLite commit (0.30 ms)". Judged on its
 * absolute target only on a quiet machine; under load the verdict is UNDER LOAD (not a MISS).
 */
export function judged(
  figure: string,
  value: number,
  limit: number,
  unit: string,
  base: Base | null,
  load: LoadReport,
  digits = 2,
  /** 'ge' for a rate (higher is better): the ratio then says how many baselines one unit of it takes. */
  dir: 'le' | 'ge' = 'le',
): Figure {
  const ratio =
    base && base.ms > 0
      ? dir === 'le'
        ? ` = ×${fmt(value / base.ms, 1)} ${base.label} (${fmt(base.ms, 3)} ms)`
        : ` = one per ${fmt(1000 / value / base.ms, 1)} × ${base.label} (${fmt(base.ms, 3)} ms)`
      : '';
  const ok = dir === 'le' ? value <= limit : value >= limit;
  return {
    figure,
    target: `${dir === 'le' ? '≤' : '≥'} ${limit} ${unit}`.trim(),
    measured: `${fmt(value, digits)} ${unit}${ratio}`.trim(),
    verdict: load.underLoad ? 'UNDER LOAD' : ok ? 'PASS' : 'MISS',
    value,
  };
}
