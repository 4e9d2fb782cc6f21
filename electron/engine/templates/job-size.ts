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

/** Where one input's value comes from: the shot's parameter of that name when it has one, else the workflow's own. */
interface Source {
  param: string | undefined;
  value: unknown;
}

/** A node that can say a size: one that has (or is given) both a width and a height. */
interface SizeNode {
  width: Source;
  height: Source;
  batch: Source;
  frames: Source[];
}

/** A template's size nodes, found once: the blocked-jobs keeper asks this of every queued job (100k after an import). */
interface SizePlan {
  nodes: SizeNode[];
  /** Whether any size input is a shot's parameter: else every job of the template is the same size. */
  usesParams: boolean;
}

/** Per workflow object, for the parameters object it was planned with (a stored template's are replaced, never changed). */
const plans = new WeakMap<Workflow, { parameters: Readonly<Record<string, string>>; plan: SizePlan }>();
const NO_PARAMS: Record<string, unknown> = {};

function sizePlan(workflow: Workflow, parameters: Readonly<Record<string, string>>): SizePlan {
  const known = plans.get(workflow);
  if (known?.parameters === parameters) return known.plan;
  const byPath = new Map(Object.entries(parameters).map(([name, path]) => [path, name]));
  const nodes: SizeNode[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    const source = (input: string): Source => ({
      param: byPath.get(`${nodeId}.${input}`),
      value: node.inputs?.[input],
    });
    const width = source('width');
    const height = source('height');
    // Neither given nor in the workflow: never a number, whatever the shot says.
    if (
      (width.param === undefined && width.value === undefined) ||
      (height.param === undefined && height.value === undefined)
    )
      continue;
    nodes.push({ width, height, batch: source('batch_size'), frames: FRAME_INPUTS.map(source) });
  }
  const usesParams = nodes.some((n) => [n.width, n.height, n.batch, ...n.frames].some((s) => s.param !== undefined));
  const plan = { nodes, usesParams };
  plans.set(workflow, { parameters, plan });
  return plan;
}

function sizeFrom(s: Source, params: Record<string, unknown>): number | null {
  const v = s.param !== undefined && params[s.param] !== undefined ? params[s.param] : s.value;
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
}

/** width × height × batch × frames of the job's largest latent; 0 when the workflow does not tell. */
export function jobPixels(
  workflow: Workflow,
  parameters: Readonly<Record<string, string>>,
  paramsJson: string,
): number {
  const plan = sizePlan(workflow, parameters);
  if (plan.nodes.length === 0) return 0;
  const params = plan.usesParams ? parsedParams(paramsJson) : NO_PARAMS;
  let largest = 0;
  for (const node of plan.nodes) {
    const w = sizeFrom(node.width, params);
    const h = sizeFrom(node.height, params);
    if (w === null || h === null) continue;
    let frames = 1;
    for (const f of node.frames) {
      const v = sizeFrom(f, params);
      if (v === null) continue;
      frames = v;
      break;
    }
    largest = Math.max(largest, Math.round(w * h * (sizeFrom(node.batch, params) ?? 1) * frames));
  }
  return largest;
}
