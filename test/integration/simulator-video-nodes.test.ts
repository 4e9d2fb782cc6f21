// The simulated Stable Video Diffusion classes (resources/templates/motion-i2v.json): declared as
// ComfyUI 0.3.64 declares them, and SaveAnimatedWEBP writes a real animated WebP reported the way
// nodes_images.py reports it. The values are placeholders, not renders.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import { startSimInstance } from '../simulator/index.js';
import { http, runToHistory } from '../simulator/testing/replay.js';
import { RESOURCES } from '../helpers/engine.js';

interface ObjectInfoEntry {
  input: { required: Record<string, unknown[]>; hidden?: Record<string, string> };
  output: string[];
  output_name: string[];
  python_module: string;
  category: string;
  output_node: boolean;
  display_name: string;
}

async function objectInfo(url: string, cls: string): Promise<ObjectInfoEntry> {
  const r = await http(url, 'GET', `/object_info/${cls}`);
  return (r.json as Record<string, ObjectInfoEntry>)[cls]!;
}

/** How many frames an animated WebP holds (its ANMF chunks). */
function webpFrames(bytes: Buffer): number {
  let n = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(at + 4);
    if (bytes.toString('ascii', at, at + 4) === 'ANMF') n++;
    at += 8 + size + (size % 2);
  }
  return n;
}

test('the SVD classes are listed with the inputs, outputs, modules and categories of ComfyUI 0.3.64', async () => {
  const sim = await startSimInstance({});
  try {
    const loader = await objectInfo(sim.url, 'ImageOnlyCheckpointLoader');
    assert.deepEqual(loader.output, ['MODEL', 'CLIP_VISION', 'VAE']);
    assert.equal(loader.python_module, 'comfy_extras.nodes_video_model');
    assert.equal(loader.category, 'loaders/video_models');
    assert.ok(
      (loader.input.required['ckpt_name']![0] as string[]).includes('svd_xt_1_1.safetensors'),
      "the template's SVD checkpoint is offered",
    );
    const cond = await objectInfo(sim.url, 'SVD_img2vid_Conditioning');
    assert.deepEqual(cond.output_name, ['positive', 'negative', 'latent']);
    assert.deepEqual(cond.input.required['video_frames'], ['INT', { default: 14, min: 1, max: 4096 }]);
    assert.equal(cond.category, 'conditioning/video_models');
    const cfg = await objectInfo(sim.url, 'VideoLinearCFGGuidance');
    assert.deepEqual(cfg.output, ['MODEL']);
    assert.equal(cfg.category, 'sampling/video_models');
    const save = await objectInfo(sim.url, 'SaveAnimatedWEBP');
    assert.equal(save.python_module, 'comfy_extras.nodes_images');
    assert.equal(save.category, 'image/animation');
    assert.equal(save.output_node, true);
    assert.deepEqual(save.input.required['method'], [['default', 'fastest', 'slowest']]);
    assert.deepEqual(save.input.hidden, { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' });
  } finally {
    await sim.close();
  }
});

test('the motion-i2v workflow runs and SaveAnimatedWEBP writes one animated WebP of every frame, reported as animated', async () => {
  const sim = await startSimInstance({ duration: { fixedMs: 10 } });
  try {
    const form = new FormData();
    form.append('image', new Blob([readFileSync(join(RESOURCES, 'samples/plates/sh010.png'))]), 'keyframe.png');
    assert.equal((await fetch(`${sim.url}/upload/image`, { method: 'POST', body: form })).status, 200);
    const workflow = (
      JSON.parse(readFileSync(join(RESOURCES, 'templates/motion-i2v.json'), 'utf8')) as {
        workflow: Record<string, unknown>;
      }
    ).workflow;
    const id = await runToHistory(sim.url, { prompt: workflow });
    const entry = (
      (await http(sim.url, 'GET', `/history/${id}`)).json as Record<
        string,
        {
          outputs: Record<string, { images: { filename: string; type: string }[]; animated: boolean[] }>;
          status: { status_str: string };
        }
      >
    )[id]!;
    assert.equal(entry.status.status_str, 'success');
    const out = entry.outputs['9']!;
    assert.deepEqual(out.animated, [true]);
    assert.equal(out.images.length, 1);
    assert.match(out.images[0]!.filename, /^motion_\d{5}_\.webp$/);
    const view = await fetch(`${sim.url}/view?filename=${out.images[0]!.filename}&type=output`);
    assert.equal(view.headers.get('content-type'), 'image/webp');
    const bytes = Buffer.from(await view.arrayBuffer());
    assert.deepEqual(imageSize(bytes), { width: 1024, height: 576, type: 'webp' });
    assert.equal(webpFrames(bytes), 25, 'one frame per video_frames');
  } finally {
    await sim.close();
  }
});
