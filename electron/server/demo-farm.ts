/**
 * `shotfarm serve --demo`: a simulated farm in this process — three ComfyUI simulators (two 24 GB
 * RTX 4090, one 12 GB RTX 3060) with a few failures scripted in, registered as demo-gpu-1..3, the
 * templates, a first episode (Moonfall / demo-01) and the demo producer (demo-producer.ts), which
 * keeps adding shots and scripting failures — and one clearly labelled SIMULATED RunPod endpoint
 * (demo-cloud-simulated, the RunPod simulator on loopback; never a real cloud) with a small daily
 * budget, so cloud burst can be seen without an account. This is the one server file that imports the simulator
 * from test/ (an agreed exception to the import zones): the demo is a tool for trying Shotfarm
 * without GPUs, not part of the product's data path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceView } from '../../shared/domain.js';
import type { Engine } from '../engine/engine.js';
import { startSimInstance, type SimInstance } from '../../test/simulator/index.js';
import { startRunpodSim, type RunpodSim } from '../../test/simulator/runpod/server.js';
import { startDemoProducer, type DemoProducer, type DemoProducerOptions } from './demo-producer.js';
import { DEMO_PROJECT, demoEpisode, firstDemoEpisode } from './demo-shots.js';

const REPO = new URL('../../', import.meta.url).pathname;
export const DEMO_LABEL = 'Demo farm';
export const DEMO_SAMPLES_DIR = join(REPO, 'resources/samples');

interface DemoGpu {
  name: string;
  gpuName: string;
  vramTotalGb: number;
  /** Behaviour words, one per prompt received: a few failures among normal runs. */
  script: string[];
  tags: string[];
}

const GPUS: DemoGpu[] = [
  {
    name: 'demo-gpu-1',
    gpuName: 'NVIDIA GeForce RTX 4090',
    vramTotalGb: 24,
    script: ['ok', 'ok', 'oom', 'ok', 'ok', 'ok', 'error', 'ok'],
    tags: ['img2img', 'i2v_video'],
  },
  {
    name: 'demo-gpu-2',
    gpuName: 'NVIDIA GeForce RTX 4090',
    vramTotalGb: 24,
    script: ['ok', 'ok', 'ok', 'drop', 'ok', 'ok', 'ok', 'oom'],
    tags: ['img2img', 'i2v_video'],
  },
  {
    name: 'demo-gpu-3',
    gpuName: 'NVIDIA GeForce RTX 3060',
    vramTotalGb: 12,
    script: ['ok', 'error', 'ok', 'ok', 'ok'],
    tags: ['img2img'],
  },
];

/** The demo's cloud endpoint: a RunPod simulator in this process, labelled as such wherever it shows. */
export const DEMO_CLOUD = {
  name: 'demo-cloud-simulated',
  endpointId: 'simulated-endpoint',
  gpuName: 'SIMULATED RunPod endpoint (not a real cloud)',
  vramGb: 24,
  pricePerHourUsd: 0.69,
  maxConcurrency: 2,
  tags: ['img2img'],
  executionTimeoutS: 600,
} as const;
/** What the simulated endpoint may "cost" per day, set when the demo first registers it. */
export const DEMO_CLOUD_BUDGET_USD = 0.25;
/** The key the simulated endpoint accepts (RUNPOD_API_KEY instead, when set: the engine sends that one). */
const DEMO_RUNPOD_KEY = 'demo-simulated-runpod-key';

/** The shipped production templates (the demo's shots use them) and the small test ones the README's quick start uses. */
const TEMPLATE_FILES = [
  join(REPO, 'test/fixtures/templates/txt2img.json'),
  join(REPO, 'test/fixtures/templates/video18.json'),
  join(REPO, 'resources/templates/keyframe-img2img.json'),
  join(REPO, 'resources/templates/motion-i2v.json'),
];

/**
 * Already in each simulated GPU's ComfyUI input folder: the template's default plate name, so a
 * shot list that names no plate (the Kitsu and ShotGrid samples) still renders keyframe-img2img.
 */
const INPUT_FILES = { 'plate.png': join(DEMO_SAMPLES_DIR, 'plates/sh010.png') };

export interface DemoFarm {
  sims: SimInstance[];
  /** The simulated RunPod endpoint. */
  cloud: RunpodSim;
  producer: DemoProducer | null;
  close(): Promise<void>;
}

export interface DemoFarmOptions {
  /** Base duration of one simulated prompt (ms); each takes between one and two of it. */
  durationMs?: number;
  /** Producer settings; `false` starts none (the first episode only). */
  producer?:
    | Partial<
        Pick<
          DemoProducerOptions,
          | 'intervalMs'
          | 'minShots'
          | 'maxShots'
          | 'maxWaiting'
          | 'maxTotalJobs'
          | 'shotsPerEpisode'
          | 'failureChance'
          | 'timer'
        >
      >
    | false;
  random?: () => number;
  log?: (line: string) => void;
}

/** Starts the simulators and fills the engine (idempotent on an existing demo data folder). */
export async function startDemoFarm(engine: Engine, opts: DemoFarmOptions = {}): Promise<DemoFarm> {
  const base = opts.durationMs ?? 4_000;
  const sims = await Promise.all(
    GPUS.map((g, n) =>
      startSimInstance({
        name: g.name,
        gpuName: g.gpuName,
        vramTotalGb: g.vramTotalGb,
        script: g.script,
        inputFiles: INPUT_FILES,
        duration: { fixedMs: base, randomMs: [0, base], seed: n + 1 },
      }),
    ),
  );
  for (const file of TEMPLATE_FILES) {
    await engine.call('templates.add', {
      content: readFileSync(file, 'utf8'),
      fileName: file.split('/').pop() ?? 'template.json',
    });
  }
  const existing = await engine.call('instances.list', {});
  for (const [n, g] of GPUS.entries()) {
    const url = (sims[n] as SimInstance).url;
    const known = existing.find((i) => i.name === g.name);
    // Simulators get fresh ports each start: point a known demo workstation at its new URL.
    if (known) await engine.call('instances.update', { id: known.id, name: g.name, url, tags: g.tags });
    else await engine.call('instances.add', { name: g.name, url, tags: g.tags });
  }
  const cloud = await startDemoCloud(engine, existing, base);
  const episode = demoEpisode(1);
  const preview = await engine.call('import.preview', {
    fileName: `${DEMO_PROJECT}_${episode}.json`,
    content: firstDemoEpisode(),
    baseDir: DEMO_SAMPLES_DIR,
  });
  if (preview.counts.new > 0) await engine.call('import.commit', { previewId: preview.previewId });
  const producer =
    opts.producer === false
      ? null
      : await startDemoProducer({
          engine,
          gpus: sims,
          baseDir: DEMO_SAMPLES_DIR,
          random: opts.random ?? Math.random,
          log: opts.log ?? (() => undefined),
          ...opts.producer,
        });
  return {
    sims,
    cloud,
    producer,
    close: async () => {
      producer?.close();
      await Promise.all([...sims.map((s) => s.close().catch(() => undefined)), cloud.close().catch(() => undefined)]);
    },
  };
}

/**
 * The simulated RunPod endpoint, on the port it had last time when it is free (its row keeps its
 * URL); else on a new port, the endpoint registered again. The budget and the key are set when it
 * is first registered, so an operator's later changes stay.
 */
async function startDemoCloud(engine: Engine, existing: readonly InstanceView[], base: number): Promise<RunpodSim> {
  const known = existing.find((i) => i.name === DEMO_CLOUD.name);
  const envKey = process.env.RUNPOD_API_KEY;
  const options = {
    endpointId: DEMO_CLOUD.endpointId,
    apiKey: envKey ?? DEMO_RUNPOD_KEY,
    coldStartMs: Math.min(3_000, base),
    workers: DEMO_CLOUD.maxConcurrency,
    comfy: { inputFiles: INPUT_FILES, duration: { fixedMs: base, randomMs: [0, base] as [number, number], seed: 9 } },
  };
  const lastPort = known ? Number(new URL(known.url).port) : 0;
  const sim = await startRunpodSim({ ...options, port: lastPort }).catch(() => startRunpodSim({ ...options, port: 0 }));
  if (known && known.url === `${sim.apiBase}/${DEMO_CLOUD.endpointId}`) return sim;
  if (known) await engine.call('instances.remove', { id: known.id });
  await engine.call('cloud.addRunpod', { ...DEMO_CLOUD, tags: [...DEMO_CLOUD.tags], apiBase: sim.apiBase });
  if (!known) {
    if (envKey === undefined) await engine.call('cloud.setApiKey', { apiKey: DEMO_RUNPOD_KEY });
    await engine.call('settings.set', { key: 'burst_budget_usd_per_day', value: DEMO_CLOUD_BUDGET_USD });
  }
  return sim;
}
