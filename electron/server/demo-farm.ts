/**
 * `shotfarm serve --demo`: a simulated farm in this process — three ComfyUI simulators (two 24 GB
 * RTX 4090, one 12 GB RTX 3060) with a few failures scripted in, registered as demo-gpu-1..3, the
 * templates, and a sample episode to watch. This is the one server file that imports the simulator
 * from test/ (an agreed exception to the import zones): the demo is a tool for trying Shotfarm
 * without GPUs, not part of the product's data path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../engine/engine.js';
import { startSimInstance, type SimInstance } from '../../test/simulator/index.js';

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
  { name: 'demo-gpu-1', gpuName: 'NVIDIA GeForce RTX 4090', vramTotalGb: 24, script: ['ok', 'ok', 'oom', 'ok', 'ok', 'ok', 'error', 'ok'], tags: ['img2img', 'i2v_video'] },
  { name: 'demo-gpu-2', gpuName: 'NVIDIA GeForce RTX 4090', vramTotalGb: 24, script: ['ok', 'ok', 'ok', 'drop', 'ok', 'ok', 'ok', 'oom'], tags: ['img2img', 'i2v_video'] },
  { name: 'demo-gpu-3', gpuName: 'NVIDIA GeForce RTX 3060', vramTotalGb: 12, script: ['ok', 'error', 'ok', 'ok', 'ok'], tags: ['img2img'] },
];

/** Templates that run on the simulator (its node set) plus the shipped samples, so both are listed. */
const TEMPLATE_FILES = [
  join(REPO, 'test/fixtures/templates/txt2img.json'),
  join(REPO, 'test/fixtures/templates/video18.json'),
  join(REPO, 'resources/templates/keyframe-img2img.json'),
  join(REPO, 'resources/templates/motion-i2v.json'),
];

const PROMPTS = [
  'Mira looks up at the broken moon, dusk', 'close-up, the lantern flickers', 'wide shot of the valley under moonlight',
  'the river carries the lantern away', 'reflections of the broken moon', 'Mira runs along the ridge', 'owl takes off from a dead tree',
  'the village lights go out one by one', 'Mira reaches the old observatory', 'the telescope turns by itself',
];

/** A sample episode: keyframes on every GPU, motion (18 GB) only where it fits, a rush shot, a held one. */
export function demoShotList(project = 'Moonfall', episode = 'ep101', shots = 18): string {
  const list = Array.from({ length: shots }, (_, i) => {
    const id = `sh${String((i + 1) * 10).padStart(3, '0')}`;
    const prompt = PROMPTS[i % PROMPTS.length] ?? 'a shot';
    const keyframe = { stage: 'keyframe', template: 'txt2img', parameters: { prompt, steps: 12 + (i % 4) * 4 } };
    if (i % 3 === 0) {
      return { id, stages: [keyframe, { stage: 'motion', template: 'video18', depends_on: 'keyframe', parameters: { steps: 20 } }] };
    }
    return { id, ...keyframe, ...(i === 4 ? { priority: 'rush' } : {}) };
  });
  return JSON.stringify({ project, episode, priority: 'normal', shots: list }, null, 2);
}

export interface DemoFarm {
  sims: SimInstance[];
  close(): Promise<void>;
}

/** Starts the simulators and fills the engine (idempotent on an existing demo data folder). */
export async function startDemoFarm(engine: Engine, opts: { durationMs?: number } = {}): Promise<DemoFarm> {
  const base = opts.durationMs ?? 4_000;
  const sims = await Promise.all(
    GPUS.map((g, n) =>
      startSimInstance({
        name: g.name, gpuName: g.gpuName, vramTotalGb: g.vramTotalGb, script: g.script,
        duration: { fixedMs: base, randomMs: [0, base], seed: n + 1 },
      }),
    ),
  );
  for (const file of TEMPLATE_FILES) {
    await engine.call('templates.add', { content: readFileSync(file, 'utf8'), fileName: file.split('/').pop() ?? 'template.json' });
  }
  const existing = await engine.call('instances.list', {});
  for (const [n, g] of GPUS.entries()) {
    const url = (sims[n] as SimInstance).url;
    const known = existing.find((i) => i.name === g.name);
    // Simulators get fresh ports each start: point a known demo workstation at its new URL.
    if (known) await engine.call('instances.update', { id: known.id, name: g.name, url, tags: g.tags });
    else await engine.call('instances.add', { name: g.name, url, tags: g.tags });
  }
  const preview = await engine.call('import.preview', { fileName: 'moonfall_ep101.json', content: demoShotList(), baseDir: DEMO_SAMPLES_DIR });
  if (preview.counts.new > 0) await engine.call('import.commit', { previewId: preview.previewId });
  return {
    sims,
    close: async () => {
      await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
    },
  };
}
