// What an output node writes and the UI dict it reports (history `outputs`, the `executed` frame):
// SaveImage/PreviewImage one PNG per batch image; SaveAnimatedWEBP one animated WebP holding the
// whole batch as frames, reported as ComfyUI's nodes_images.py does: `{images: [ref], animated: [true]}`
// (`animated` is false for a single frame). The pixels are placeholders, not a render.

import { createHash } from 'node:crypto';
import { saveImage, writeOutput, type ImageDirs } from './images.js';
import type { SimValue } from './graph.js';
import type { NodeTraits } from './node-catalog.js';
import { animatedWebp, type Rgb } from './webp.js';

type Image = NonNullable<SimValue['image']>;

/** One colour per frame, drifting from a colour seeded by the node's signature (so it "moves"). */
function frameColours(signature: string, count: number): Rgb[] {
  const seed = createHash('sha256').update(signature).digest();
  return Array.from({ length: count }, (_, i) => ({
    r: (seed[0]! + i * 7) & 255,
    g: (seed[1]! + i * 3) & 255,
    b: (seed[2]! + i * 5) & 255,
  }));
}

export async function saveOutputs(
  dirs: ImageDirs,
  traits: NodeTraits,
  inputs: Record<string, unknown>,
  image: Image,
  promptId: string,
  signature: string,
): Promise<Record<string, unknown>> {
  const kind = traits.saves ?? 'output';
  const prefix =
    kind === 'output' ? String(inputs['filename_prefix'] ?? 'ComfyUI') : `ComfyUI_temp_${promptId.slice(0, 5)}`;
  const frames = Math.max(1, image.batch);
  if (traits.animated) {
    const fps = Number(inputs['fps']);
    const webp = animatedWebp(
      image.width,
      image.height,
      frameColours(signature, frames),
      Math.trunc(1000 / (fps > 0 ? fps : 6)),
    ); // int(1000.0/fps), as the node does
    return { images: [await writeOutput(dirs, kind, prefix, 'webp', webp)], animated: [frames !== 1] };
  }
  const images = [];
  for (let b = 0; b < Math.min(16, frames); b++) {
    images.push(await saveImage(dirs, kind, prefix, image.width, image.height, `${signature}#${b}`));
  }
  return { images };
}
