// Pure helpers over an API-format graph: cache signatures, the order ComfyUI would run nodes in,
// and the simulated value each node produces (just enough to size images and to raise the errors
// real nodes raise, e.g. ImageToMask('alpha') on an RGB image).

import { isLink, type Graph } from './validate.js';

/** What flows along a link in the simulation. */
export interface SimValue {
  image?: { width: number; height: number; alpha: boolean; batch: number };
  latent?: { width: number; height: number; batch: number };
  ckpt?: string;
}

/**
 * Input signature per node, like ComfyUI's CacheKeySetInputSignature: class, literal inputs and the
 * signatures of linked ancestors — so an identical sub-graph hits the cache under any node id or prompt id.
 */
export function signatures(graph: Graph): Map<string, string> {
  const memo = new Map<string, string>();
  const visit = (id: string, stack: Set<string>): string => {
    const done = memo.get(id);
    if (done !== undefined) return done;
    const node = graph[id];
    if (!node || stack.has(id)) return `missing:${id}`;
    stack.add(id);
    const inputs = node.inputs ?? {};
    const parts = Object.keys(inputs)
      .sort()
      .map((k) => {
        const v = inputs[k];
        return isLink(v) ? [k, 'link', visit(String(v[0]), stack), v[1]] : [k, v];
      });
    stack.delete(id);
    const sig = JSON.stringify([node.class_type, parts]);
    memo.set(id, sig);
    return sig;
  };
  for (const id of Object.keys(graph)) visit(id, new Set());
  return memo;
}

/**
 * Nodes to run, dependencies first, as ComfyUI's ExecutionList stages them: each output, and the
 * uncached ancestors it needs. A cached node's ancestors are never staged; a cached output node is
 * staged itself (it re-sends its UI output).
 */
export function runOrder(graph: Graph, outputs: string[], isCached: (id: string) => boolean): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string, root: boolean): void => {
    if (seen.has(id) || !graph[id]) return;
    const cached = isCached(id);
    if (cached && !root) return; // its cached value is used directly; ComfyUI never stages it
    seen.add(id);
    if (!cached) {
      for (const v of Object.values(graph[id]!.inputs ?? {})) if (isLink(v)) visit(String(v[0]), false);
    }
    order.push(id);
  };
  for (const o of outputs) visit(o, true);
  return order;
}

export class NodeFailure extends Error {
  constructor(
    readonly exceptionType: string,
    message: string,
  ) {
    super(message);
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** The simulated result of one node, from its inputs and the values of its linked inputs. */
export function evaluateNode(
  classType: string,
  inputs: Record<string, unknown>,
  linked: (name: string) => SimValue | undefined,
  inputImageSize: (name: string) => { width: number; height: number } | null,
): SimValue {
  const img = (name: string): NonNullable<SimValue['image']> =>
    linked(name)?.image ?? { width: 64, height: 64, alpha: false, batch: 1 };
  const lat = (name: string): NonNullable<SimValue['latent']> =>
    linked(name)?.latent ?? { width: 512, height: 512, batch: 1 };
  switch (classType) {
    case 'EmptyImage':
      return {
        image: {
          width: num(inputs['width'], 512),
          height: num(inputs['height'], 512),
          alpha: false,
          batch: num(inputs['batch_size'], 1),
        },
      };
    case 'ImageInvert':
    case 'ImageBlur':
      return { image: img(Object.keys(inputs).includes('image') ? 'image' : 'images') };
    case 'ImageScale': {
      const src = img('image');
      const w = num(inputs['width'], 0);
      const h = num(inputs['height'], 0);
      return {
        image: {
          ...src,
          width: w || (h ? Math.round((src.width * h) / src.height) : src.width),
          height: h || (w ? Math.round((src.height * w) / src.width) : src.height),
        },
      };
    }
    case 'ImageToMask': {
      const src = img('image');
      // A real IndexError from comfy_extras/nodes_mask.py (execution_error.json).
      if (inputs['channel'] === 'alpha' && !src.alpha)
        throw new NodeFailure('IndexError', 'index 3 is out of bounds for dimension 3 with size 3');
      return { image: { ...src, alpha: false } };
    }
    case 'MaskToImage':
      return { image: linked('mask')?.image ?? { width: 64, height: 64, alpha: false, batch: 1 } };
    case 'LoadImage': {
      const size = inputImageSize(String(inputs['image'])) ?? { width: 64, height: 64 };
      return { image: { ...size, alpha: false, batch: 1 } };
    }
    case 'CheckpointLoaderSimple':
    case 'ImageOnlyCheckpointLoader':
      return { ckpt: String(inputs['ckpt_name']) };
    case 'VideoLinearCFGGuidance':
      return linked('model') ?? {};
    case 'SVD_img2vid_Conditioning':
      // Its latent is one frame per video frame at the requested size (what VAEDecode turns into the clip).
      return {
        latent: {
          width: num(inputs['width'], 1024),
          height: num(inputs['height'], 576),
          batch: num(inputs['video_frames'], 14),
        },
      };
    case 'LoraLoader':
      return linked('model') ?? {};
    case 'EmptyLatentImage':
      return {
        latent: {
          width: num(inputs['width'], 512),
          height: num(inputs['height'], 512),
          batch: num(inputs['batch_size'], 1),
        },
      };
    case 'KSampler':
      return { latent: lat('latent_image') };
    case 'VAEDecode': {
      const l = lat('samples');
      return { image: { width: l.width, height: l.height, alpha: false, batch: l.batch } };
    }
    case 'VAEEncode': {
      const i = img('pixels');
      return { latent: { width: i.width, height: i.height, batch: i.batch } };
    }
    default:
      return {};
  }
}

/** The checkpoint a sampler's `model` input traces back to, if any. */
export function checkpointOf(graph: Graph, id: string, seen = new Set<string>()): string | null {
  if (seen.has(id)) return null;
  seen.add(id);
  const node = graph[id];
  if (!node) return null;
  if (node.class_type === 'CheckpointLoaderSimple' || node.class_type === 'ImageOnlyCheckpointLoader')
    return String(node.inputs?.['ckpt_name']);
  const model = node.inputs?.['model'];
  return isLink(model) ? checkpointOf(graph, String(model[0]), seen) : null;
}
