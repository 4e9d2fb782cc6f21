/**
 * A Stable Diffusion txt2img graph in ComfyUI's API format (checkpoint → empty latent → two prompts
 * → KSampler → VAE decode → save), and the `sdxl-1024` template around it that the VRAM tests and
 * the VRAM benchmark run on the simulator: SDXL at 1024², declared 10 GB, whose true need the
 * simulator is told with `SDXL_NEEDS`.
 */
import type { Farm } from './farm.js';

export const SDXL_CKPT = 'sd_xl_base_1.0.safetensors';
/** What SDXL at 1024² really takes on the simulator (its `vramNeeds`): weights 4.5 + activations 2.0 = 6.5 GB. */
export const SDXL_NEEDS = { [SDXL_CKPT]: { modelGb: 4.5, activationGb: 2.0 } };
export const SDXL_TEMPLATE = 'sdxl-1024';

export interface SdGraphOptions {
  ckpt?: string;
  width?: number;
  height?: number;
  seed?: number;
  steps?: number;
  prompt?: string;
  negative?: string;
  prefix?: string;
}

export function sdGraph(o: SdGraphOptions = {}): Record<string, unknown> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: o.ckpt ?? SDXL_CKPT } },
    '5': {
      class_type: 'EmptyLatentImage',
      inputs: { width: o.width ?? 1024, height: o.height ?? 1024, batch_size: 1 },
    },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: o.prompt ?? 'a frame', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: o.negative ?? '', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: o.seed ?? 1,
        steps: o.steps ?? 4,
        cfg: 7,
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
      },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: o.prefix ?? 'v' } },
  };
}

/**
 * Registers `sdxl-1024` (declared 10 GB; an attempt may take `timeoutS`). Each take gets its own
 * seed: ComfyUI (and the simulator) would otherwise serve a repeated prompt from its cache.
 */
export async function addSdxlTemplate(farm: Farm, timeoutS: number): Promise<void> {
  const content = JSON.stringify({
    name: SDXL_TEMPLATE,
    stage: 'keyframe',
    vram_gb: 10,
    tags: [],
    timeout_s: timeoutS,
    parameters: { prompt: '6.text', seed: '3.seed' },
    workflow: sdGraph(),
  });
  await farm.engine.call('templates.add', { content, fileName: `${SDXL_TEMPLATE}.json` });
}

/** `n` shots of `sdxl-1024` named `${prefix}0`, `${prefix}1`, … */
export function sdxlShots(n: number, prefix: string): { id: string; template: string }[] {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, template: SDXL_TEMPLATE }));
}
