/**
 * How big a job renders, for the learned VRAM need (scheduler/vram-need.ts): width × height ×
 * batch × frames of the node that makes its latent (EmptyLatentImage, SVD_img2vid_Conditioning,
 * EmptyHunyuanLatentVideo…), after the shot's parameters are applied. 0 when no node says — an
 * img2img renders at its input image's size, which the workflow does not know.
 */

type Workflow = Record<string, { class_type?: string; inputs?: Record<string, unknown> }>;

const FRAME_INPUTS = ['video_frames', 'length', 'frames', 'num_frames'];

function parsedParams(paramsJson: string): Record<string, unknown> {
  try {
    const p = JSON.parse(paramsJson) as unknown;
    return p !== null && typeof p === 'object' ? (p as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** width × height × batch × frames of the job's largest latent; 0 when the workflow does not tell. */
export function jobPixels(
  workflow: Workflow,
  parameters: Readonly<Record<string, string>>,
  paramsJson: string,
): number {
  const params = parsedParams(paramsJson);
  const byPath = new Map(Object.entries(parameters).map(([name, path]) => [path, name]));
  let largest = 0;
  for (const [nodeId, node] of Object.entries(workflow)) {
    const value = (input: string): number | null => {
      const name = byPath.get(`${nodeId}.${input}`);
      const v = name !== undefined && params[name] !== undefined ? params[name] : node.inputs?.[input];
      const n = typeof v === 'string' ? Number(v) : v;
      return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
    };
    const w = value('width');
    const h = value('height');
    if (w === null || h === null) continue;
    const frames = FRAME_INPUTS.map(value).find((n) => n !== null) ?? 1;
    largest = Math.max(largest, Math.round(w * h * (value('batch_size') ?? 1) * frames));
  }
  return largest;
}
