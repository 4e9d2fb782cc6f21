/**
 * Idle time between prompts on one GPU: one simulated instance, 16 prompts of 200–250 ms back to
 * back, dispatched by the real engine (scheduler + import through the contract). Measured on the
 * simulator's own clock: one prompt's end (execution_success, and the history write a moment
 * later) → the next prompt's execution_start on that instance.
 *
 * The judged run gives the simulator the recorded history window (RECORDED_HISTORY_DELAY_MS,
 * 0–0.8 ms: a real ComfyUI leaves ~1 ms between two prompts already in its queue, the premise of
 * the ≤ 3 ms target). Beside it, the simulator's own floor: the same prompts posted at once straight
 * to a fresh instance (no engine), so each next one is already queued when the previous ends; the
 * engine with prefetch off; and the same pair against the simulator's default 1–6 ms window (a
 * loaded server), where the floor itself is above 3 ms — the engine's share is the difference.
 *
 * Where the engine asks /queue + /history inside the window (after execution_success, before the
 * history write) it sees the prompt still running and asks again only after `historyPollMs`
 * (2 s): such a gap shows up here as ~2 s. A last run, against `historyDelayMs: 0` (the simulator
 * before the window existed), shows what the same engine does without it.
 *
 *   npm run bench -- gaps [--prompts 16] [--history-delay-ms A[,B]]   (the judged window)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SimInstanceOptions } from '../simulator/index.js';
import { DEFAULT_HISTORY_DELAY_MS, parseHistoryDelay, RECORDED_HISTORY_DELAY_MS } from '../simulator/options.js';
import {
  FIXTURE_TEMPLATES,
  importThroughContract,
  openBenchEngine,
  shotListJson,
  startAndWaitReady,
  stateCounts,
} from './lib/bench-engine.js';
import { startRemoteFarm, type RemoteFarm } from './lib/remote-farm.js';
import { gapsBetween, type SimEvent } from './lib/sim-events.js';
import { summary, until } from './lib/stats.js';
import { info, le, type Benchmark, type Figure } from './lib/types.js';

/** 200 ms per prompt plus 0–50 ms, seeded: the node time is (fixed + random) ÷ nodes, per node. */
const DURATION = { fixedMs: 200, randomMs: [0, 50] as [number, number], seed: 42 };
const TARGET_P99_MS = 25;
/** With the next prompt already queued on the server, ComfyUI's own gap (~1 ms) plus slack. */
const TARGET_P50_MS = 3;
/** A prompt's worst case here is 250 ms of work + a missed history poll (2 s) + slack. */
const PER_PROMPT_BOUND_MS = 4_000;

interface Gaps {
  fromSuccess: number[];
  fromHistory: number[];
  historyDelay: number[];
  toNextPost: number[];
  /** Paths of requests answered inside a history window (they saw the prompt still running), with counts. */
  inWindow: Record<string, number>;
  finished: boolean;
}

function gapsOf(events: SimEvent[], finished: boolean): Gaps {
  const inWindow: Record<string, number> = {};
  for (const e of events) if (e.k === 'W') inWindow[e.path ?? '?'] = (inWindow[e.path ?? '?'] ?? 0) + 1;
  return {
    fromSuccess: gapsBetween(events, 'E', 'S'),
    fromHistory: gapsBetween(events, 'H', 'S'),
    historyDelay: gapsBetween(events, 'E', 'H'),
    toNextPost: gapsBetween(events, 'E', 'P'),
    inWindow,
    finished,
  };
}

function windowLine(g: Gaps): string {
  const parts = Object.entries(g.inWindow).map(([path, n]) => `${n} × ${path}`);
  return parts.length ? parts.join(', ') : 'none';
}

function instance(historyDelayMs: number | [number, number] | undefined): SimInstanceOptions {
  return { name: 'gpu0', duration: DURATION, ...(historyDelayMs !== undefined ? { historyDelayMs } : {}) };
}

async function withFarm<T>(o: SimInstanceOptions, fn: (farm: RemoteFarm) => Promise<T>): Promise<T> {
  const farm = await startRemoteFarm([o]);
  try {
    return await fn(farm);
  } finally {
    await farm.close();
  }
}

/** The real engine dispatches `n` txt2img jobs to the one instance (prefetch: the next one already waits on the server). */
async function engineRun(o: SimInstanceOptions, n: number, log: (m: string) => void, prefetch = true): Promise<Gaps> {
  return withFarm(o, async (farm) => {
    const be = await openBenchEngine({ instances: [{ url: farm.urls[0] as string, name: 'gpu0' }] });
    try {
      await startAndWaitReady(be.engine, { prefetch });
      await farm.events(true);
      const r = await importThroughContract(be.engine, shotListJson(n, { prefix: 'gap' }));
      if (r.ids.length !== n) throw new Error(`imported ${r.ids.length} of ${n}`);
      const ok = await until(() => (stateCounts(be.engine).completed ?? 0) >= n, n * PER_PROMPT_BOUND_MS, 20);
      if (!ok) log(`engine run stopped at its time bound: ${JSON.stringify(stateCounts(be.engine))}`);
      return gapsOf(await farm.events(true), ok);
    } finally {
      await be.close();
    }
  });
}

/** The same kind of prompts posted all at once straight to the simulator: its own gap. */
async function preQueuedRun(o: SimInstanceOptions, n: number, log: (m: string) => void): Promise<Gaps> {
  const tpl = JSON.parse(readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8')) as {
    workflow: Record<string, { inputs: Record<string, unknown> }>;
  };
  return withFarm(o, async (farm) => {
    const url = farm.urls[0] as string;
    await farm.events(true);
    for (let i = 0; i < n; i++) {
      const prompt = structuredClone(tpl.workflow);
      (prompt['6'] as { inputs: Record<string, unknown> }).inputs.text = `shot ${i}`;
      // A client_id (no socket behind it) so the run's messages go through the hub, where they are timed.
      const res = await fetch(`${url}/prompt`, {
        method: 'POST',
        body: JSON.stringify({ prompt, prompt_id: randomUUID(), client_id: 'gaps-bench' }),
      });
      if (!res.ok) throw new Error(`POST /prompt ${i}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    const written = async (): Promise<number> => (await farm.events(false)).filter((e) => e.k === 'H').length;
    const ok = await until(async () => (await written()) >= n, n * PER_PROMPT_BOUND_MS, 20);
    if (!ok) log(`pre-queued run stopped at its time bound: ${await written()} of ${n} written`);
    return gapsOf(await farm.events(true), ok);
  });
}

function line(values: number[]): string {
  const s = summary(values);
  return `${s.p50} / ${s.p90} / ${s.p99} / ${s.max} ms (n=${s.n})`;
}

export const gapsBench: Benchmark = {
  name: 'gaps',
  description: 'idle time between back-to-back prompts on one GPU (recorded history window), engine vs pre-queued',
  async run({ quick, flags, log }) {
    const n = quick ? 8 : Number(flags.prompts ?? 16);
    const judged =
      flags['history-delay-ms'] === undefined
        ? RECORDED_HISTORY_DELAY_MS
        : parseHistoryDelay(flags['history-delay-ms']);
    const o = instance(judged);
    const loaded = instance(DEFAULT_HISTORY_DELAY_MS);
    const w = (d: number | [number, number]): string => (Array.isArray(d) ? `${d[0]}–${d[1]} ms` : `${d} ms`);
    log(
      `engine: ${n} prompts of ${DURATION.fixedMs}–${DURATION.fixedMs + DURATION.randomMs[1]} ms on one instance, history window ${w(judged)}`,
    );
    const e = await engineRun(o, n, log);
    log('pre-queued: the same prompts posted at once straight to the simulator');
    const p = await preQueuedRun(o, n, log);
    log('engine with prefetch off (each prompt posted after the previous one ended)');
    const off = await engineRun(o, n, log, false);
    log(`the same against the default (loaded server) window, ${w(DEFAULT_HISTORY_DELAY_MS)}: engine, then pre-queued`);
    const le6 = await engineRun(loaded, n, log);
    const p6 = await preQueuedRun(loaded, n, log);
    log('engine again, against historyDelayMs 0 (no window)');
    const z = await engineRun(instance(0), n, log);
    const slow = e.fromSuccess.filter((g) => g >= 1000).length + le6.fromSuccess.filter((g) => g >= 1000).length;
    const figures: Figure[] = [
      le(
        `engine (prefetch on, window ${w(judged)}): prompt end (execution_success) → next execution_start, p50`,
        summary(e.fromSuccess).p50,
        TARGET_P50_MS,
        'ms',
      ),
      le(
        'engine (prefetch on): prompt end → next execution_start, p99',
        summary(e.fromSuccess).p99,
        TARGET_P99_MS,
        'ms',
      ),
      info('  engine p50 / p90 / p99 / max, from execution_success', line(e.fromSuccess)),
      info('  pre-queued (no engine: the simulator alone), from execution_success', line(p.fromSuccess)),
      info('  engine with prefetch off, from execution_success', line(off.fromSuccess)),
      info('  engine p50 / p90 / p99 / max, from the history write', line(e.fromHistory)),
      info(
        '  engine: execution_success → next POST /prompt arrives (with prefetch, the prompt after the next)',
        line(e.toNextPost),
      ),
      info(
        `  default window ${w(DEFAULT_HISTORY_DELAY_MS)}: engine / pre-queued (its floor), from execution_success`,
        `${line(le6.fromSuccess)} / ${line(p6.fromSuccess)}`,
      ),
      info(
        '  engine requests answered inside a history window (saw the prompt still running), both windows',
        `${windowLine(e)}; ${windowLine(le6)}`,
      ),
      info(
        '  engine gaps ≥ 1 s (asked too early, asked again after historyPollMs), both windows',
        `${slow} of ${e.fromSuccess.length + le6.fromSuccess.length}`,
      ),
      info(
        '  history written after execution_success (loop stalls included), engine / pre-queued',
        `${line(e.historyDelay)} / ${line(p.historyDelay)}`,
      ),
      info('  engine against historyDelayMs 0, from execution_success', line(z.fromSuccess)),
    ];
    for (const [name, g] of [
      ['engine', e],
      ['engine, prefetch off', off],
      ['pre-queued', p],
      ['engine, default window', le6],
      ['pre-queued, default window', p6],
      ['engine, delay 0', z],
    ] as const) {
      if (!g.finished)
        figures.push({
          figure: `  ${name} run finished within its time bound`,
          target: 'yes',
          measured: 'no',
          verdict: 'MISS',
        });
    }
    return {
      figures,
      details: {
        prompts: n,
        duration: DURATION,
        historyDelayMs: judged,
        engine: e,
        enginePrefetchOff: off,
        preQueued: p,
        engineDefaultWindow: le6,
        preQueuedDefaultWindow: p6,
        engineNoDelay: z,
        summaries: {
          engine: summary(e.fromSuccess),
          enginePrefetchOff: summary(off.fromSuccess),
          engineFromHistory: summary(e.fromHistory),
          preQueued: summary(p.fromSuccess),
          preQueuedFromHistory: summary(p.fromHistory),
          engineDefaultWindow: summary(le6.fromSuccess),
          preQueuedDefaultWindow: summary(p6.fromSuccess),
          engineNoDelay: summary(z.fromSuccess),
        },
      },
    };
  },
};
