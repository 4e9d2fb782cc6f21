/**
 * The engine beside a pool SDK on the same farm and workload, as a user comparing the two would
 * run them: 16 simulated GPUs (one simulator process each side, a fresh farm per side), `--jobs`
 * prompts of 300–360 ms (3–3.6 s ÷ `--scale` 10) with a 20-step sampler sending progress. End to
 * end per job, in this process: the engine imports the shot list, claims, posts, follows,
 * downloads, hashes and commits; the SDK is @saintno/comfyui-sdk's ComfyPool, the one issue 30
 * compared (lib/comfyui-sdk-pool.ts: prompts through CallWrapper, images fetched and written);
 * beside both, an SDK-style pool written here (lib/sdk-style-pool.ts: one WebSocket per server,
 * posts on `executing` null, fetches /history and /view, writes the file) that does even less than
 * the SDK — the floor of what a client does. Printed side by side: CPU per job (process.cpuUsage:
 * every thread), its ratio to the SDK (target ≤ 2×: durable writes are worth something, not more)
 * and to the floor, and the makespan of each. Three rounds by default (`--rounds`), the sides'
 * order rotated each round; each side's figure is its rounds' median. The engine runs headless
 * there (no client: views only for finished jobs); one more engine round with a client following
 * every job change, as the app and `shotfarm run` do, is printed beside. A fourth side in every
 * round is the engine on a farm whose store holds a studio's history (`--history`, 100k finished
 * jobs with their attempts, events and ledger rows: lib/finished-history.ts), judged against the
 * fresh farm's rounds: what the engine reads per job must not grow with the history (a claim's
 * lookup did: ~9 → ~17 ms per job at 100k, store-history-reads.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../electron/engine/clock.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { SimInstanceOptions } from '../simulator/index.js';
import { RECORDED_HISTORY_DELAY_MS } from '../simulator/options.js';
import { loadLine, watchLoad } from './lib/baselines.js';
import {
  FIXTURE_TEMPLATES,
  importThroughContract,
  openBenchEngine,
  shotListJson,
  startAndWaitReady,
} from './lib/bench-engine.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { runComfyuiSdkPool } from './lib/comfyui-sdk-pool.js';
import { fillFinishedHistory } from './lib/finished-history.js';
import { runSdkStylePool, type SdkPrompt } from './lib/sdk-style-pool.js';
import { executions, type SimEvent } from './lib/sim-events.js';
import { median, round, sum, until } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

const STEPS = 20;

function farmOf(gpus: number, f: number): SimInstanceOptions[] {
  return Array.from({ length: gpus }, (_, i) => ({
    name: `ws${i}`,
    duration: { fixedMs: 30 * f, perClassMs: { KSampler: 270 * f }, randomMs: [0, 60 * f], seed: 500 + i },
    historyDelayMs: RECORDED_HISTORY_DELAY_MS,
  }));
}

function makespanOf(events: SimEvent[]): number {
  const ex = executions(events).filter((e) => e.outcome === 'success');
  const first = Math.min(...events.filter((e) => e.k === 'P').map((e) => e.t));
  return Math.max(...ex.map((e) => e.end)) - first;
}

interface Side {
  cpuMs: number;
  /** Of cpuMs, the kernel's (system time): syscalls — fsync, file and socket writes — on every thread. */
  sysMs: number;
  completed: number;
  makespanMs: number;
  simCpuMs: number;
}

/**
 * The engine's side. `listening`: a client follows every job change, as the app, the web UI and
 * `shotfarm run` do — each change's view is built and sent; without one (a headless engine) the
 * farm builds views only for finished jobs (announcer.ts announceFarm).
 */
async function engineSide(
  gpus: number,
  jobs: number,
  f: number,
  o: { listening?: boolean; history?: number } = {},
): Promise<Side> {
  const farm = await startRemoteFarm(farmOf(gpus, f));
  const be = await openBenchEngine({ templates: ['txt2img.json'], instances: farm.urls.map((url) => ({ url })) });
  const off = o.listening ? be.engine.events.on('job.changed', () => undefined) : () => undefined;
  const completed = (ids: string[]) => {
    // Cheap whatever the store holds (a COUNT over every completed job would read the history):
    // the measured jobs only, the first still unfinished ends the look.
    const pending = new Set(ids);
    return (): number => {
      for (const id of pending)
        if (be.engine.db.one<{ state: string }>('SELECT state FROM jobs WHERE id = ?', id)?.state === 'completed')
          pending.delete(id);
        else break;
      return ids.length - pending.size;
    };
  };
  try {
    await startAndWaitReady(be.engine);
    if (o.history) {
      // A prompt per GPU finished first (so every workstation has attempts), then copied into the history.
      const warm = await importThroughContract(be.engine, shotListJson(gpus, { episode: 'warm-up' }));
      const warmDone = completed(warm.ids);
      await until(() => warmDone() >= gpus, 120_000, 20);
      fillFinishedHistory(be.engine.db, Math.ceil(o.history / gpus));
    }
    await farm.events(true);
    const sim0 = await farm.cpu();
    const cpu0 = process.cpuUsage();
    const { ids } = await importThroughContract(
      be.engine,
      shotListJson(jobs, { spec: (i) => ({ parameters: { prompt: `shot ${i}`, steps: STEPS } }) }),
    );
    const done = completed(ids);
    await until(() => done() >= jobs, 300_000, 20);
    const cpu = process.cpuUsage(cpu0);
    const sim1 = await farm.cpu();
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      sysMs: cpu.system / 1000,
      completed: done(),
      makespanMs: makespanOf(await farm.events(true)),
      simCpuMs: (sim1.user + sim1.system - sim0.user - sim0.system) / 1000,
    };
  } finally {
    off();
    await be.close();
    await farm.close();
  }
}

/** A client side's runner: the prompts over the farm's servers, outputs written to `outDir`. */
type PoolRun = (urls: string[], prompts: SdkPrompt[], outDir: string) => Promise<{ completed: number }>;

const POOLS = {
  sdk: {
    label: 'ComfyPool (@saintno/comfyui-sdk)',
    run: ((urls, prompts, outDir) => runComfyuiSdkPool(urls, prompts, outDir, 300_000)) as PoolRun,
  },
  floor: {
    label: 'SDK-style pool',
    run: ((urls, prompts, outDir) => runSdkStylePool(urls, prompts, outDir, 300_000)) as PoolRun,
  },
} as const;
type PoolKind = keyof typeof POOLS;

async function poolSide(kind: PoolKind, gpus: number, jobs: number, f: number): Promise<Side> {
  const farm = await startRemoteFarm(farmOf(gpus, f));
  const out = makeTempDir('shotfarm-sdk-');
  try {
    await farm.events(true);
    const sim0 = await farm.cpu();
    const cpu0 = process.cpuUsage();
    // The same prompts the engine sends: the template's workflow with the shot's text, steps and a seed.
    const tpl = JSON.parse(readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8')) as {
      workflow: Record<string, { inputs: Record<string, unknown> }>;
    };
    const rnd = seededRandom(5);
    const prompts: SdkPrompt[] = Array.from({ length: jobs }, (_, i) => {
      const wf = structuredClone(tpl.workflow);
      (wf['6'] as { inputs: Record<string, unknown> }).inputs.text = `shot ${i}`;
      const sampler = wf['3'] as { inputs: Record<string, unknown> };
      sampler.inputs.steps = STEPS;
      sampler.inputs.seed = Math.floor(rnd() * 2 ** 32);
      return { promptId: randomUUID(), prompt: wf };
    });
    const r = await POOLS[kind].run(farm.urls, prompts, out.path);
    const cpu = process.cpuUsage(cpu0);
    const sim1 = await farm.cpu();
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      sysMs: cpu.system / 1000,
      completed: r.completed,
      makespanMs: makespanOf(await farm.events(true)),
      simCpuMs: (sim1.user + sim1.system - sim0.user - sim0.system) / 1000,
    };
  } finally {
    await farm.close();
    out.cleanup();
  }
}

export const sdkBench: Benchmark = {
  name: 'sdk',
  description:
    'end-to-end CPU per job: the engine beside ComfyPool (@saintno/comfyui-sdk) and an SDK-style pool on the same farm and workload',
  async run(args) {
    const { log } = args;
    const { jobs, gpus, scale, rounds, history } = numberFlags(args, {
      jobs: [320, 96],
      gpus: 16,
      scale: 10,
      rounds: [3, 1],
      history: [100_000, 10_000],
    });
    const f = 10 / scale;
    const load = watchLoad();
    // Each side's figure is the median of its rounds.
    const eRuns: Side[] = [];
    const pRuns: Record<PoolKind, Side[]> = { sdk: [], floor: [] };
    // The engine on a farm with a history is a side of its own, in every round: one round's CPU
    // swings too much to judge a ratio on.
    const aRuns: Side[] = [];
    const sides = ['engine', 'sdk', 'floor', 'aged'] as const;
    for (let r = 0; r < Math.max(1, rounds); r++) {
      // The order rotates each round: whichever side runs first pays the shared libraries'
      // warm-up (ws, undici, the JIT), and one 7 s run's CPU swings by a third on its own.
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(r + k) % sides.length] as (typeof sides)[number];
        if (side === 'engine') {
          log(`round ${r + 1}: engine, ${jobs} jobs on ${gpus} GPUs`);
          eRuns.push(await engineSide(gpus, jobs, f));
        } else if (side === 'aged') {
          log(`round ${r + 1}: engine on a farm with ${history} finished jobs in its store, ${jobs} jobs`);
          aRuns.push(await engineSide(gpus, jobs, f, { history }));
        } else {
          log(`round ${r + 1}: ${POOLS[side].label}, the same ${jobs} jobs on a fresh farm`);
          pRuns[side].push(await poolSide(side, gpus, jobs, f));
        }
      }
    }
    // Then the engine once more with a client following every change (the app, `shotfarm run`).
    log(`engine with a client listening: ${jobs} jobs on ${gpus} GPUs`);
    const heard = await engineSide(gpus, jobs, f, { listening: true });
    const all = [...eRuns, ...pRuns.sdk, ...pRuns.floor, ...aRuns, heard];
    const l = load.stop(sum(all.map((x) => x.cpuMs + x.simCpuMs)));
    const per = (x: Side) => x.cpuMs / Math.max(1, x.completed);
    const sysPer = (x: Side) => x.sysMs / Math.max(1, x.completed);
    const ePer = median(eRuns.map(per));
    const sPer = median(pRuns.sdk.map(per));
    const fPer = median(pRuns.floor.map(per));
    const aPer = median(aRuns.map(per));
    const first = (xs: Side[]) => xs[0] as Side;
    const roundsLine = eRuns
      .map((x, i) => {
        const sdk = per(pRuns.sdk[i] as Side);
        return `${round(per(x), 2)} / ${round(sdk, 2)} / ${round(per(pRuns.floor[i] as Side), 2)} ms (${round(per(x) / sdk, 2)}×)`;
      })
      .join(', ');
    return {
      figures: [
        info(
          'load',
          `${jobs} prompts of ${round(300 * f)}–${round(360 * f)} ms (3–3.6 s ÷${scale}), ${STEPS} sampler steps with progress, ${gpus} GPUs, ${eRuns.length} round${eRuns.length === 1 ? '' : 's'}, the sides' order rotated`,
        ),
        le(
          'end-to-end CPU per job, engine ÷ ComfyPool (@saintno/comfyui-sdk; medians of the rounds)',
          ePer / sPer,
          2,
          '×',
        ),
        info(
          '  CPU per job: engine / ComfyPool / SDK-style pool (all threads, medians)',
          `${round(ePer, 2)} / ${round(sPer, 2)} / ${round(fPer, 2)} ms — engine ÷ SDK-style pool ${round(ePer / fPer, 2)}×`,
        ),
        info('  each round: engine / ComfyPool / SDK-style pool (engine ÷ ComfyPool)', roundsLine),
        info(
          '  of it the kernel’s (system time: fsync, file and socket writes), medians',
          `engine ${round(median(eRuns.map(sysPer)), 2)} / ComfyPool ${round(median(pRuns.sdk.map(sysPer)), 2)} / SDK-style pool ${round(median(pRuns.floor.map(sysPer)), 2)} ms per job`,
        ),
        info(
          '  engine with a client following every job change (one round, after them)',
          `${round(per(heard), 2)} ms per job = ${round(per(heard) / sPer, 2)}× ComfyPool's median`,
        ),
        le(
          `engine CPU per job with ${history} finished jobs in the store ÷ on a fresh farm (medians of the rounds)`,
          aPer / ePer,
          1.25,
          '×',
        ),
        info(
          `  engine with ${history} finished jobs in the store, each round`,
          `${aRuns.map((x) => `${round(per(x), 2)} ms`).join(', ')} per job (median ${round(aPer, 2)} = ${round(aPer / sPer, 2)}× ComfyPool's); ${aRuns.map((x) => x.completed).join(' / ')} completed`,
        ),
        info(
          '  makespan: engine / ComfyPool / SDK-style pool (first round)',
          `${round(first(eRuns).makespanMs / 1000, 2)} / ${round(first(pRuns.sdk).makespanMs / 1000, 2)} / ${round(first(pRuns.floor).makespanMs / 1000, 2)} s (${first(eRuns).completed} / ${first(pRuns.sdk).completed} / ${first(pRuns.floor).completed} completed)`,
        ),
        info('  machine', loadLine(l)),
      ],
      details: {
        jobs,
        gpus,
        scale,
        rounds: eRuns.length,
        engine: eRuns,
        sdk: pRuns.sdk,
        sdkStyle: pRuns.floor,
        engineListening: heard,
        engineWithHistory: { history, rounds: aRuns },
        load: l,
      },
    };
  },
};
