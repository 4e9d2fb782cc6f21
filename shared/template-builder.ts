/**
 * Turns a ComfyUI workflow in API format (Workflow → Export (API)) and the node inputs an operator
 * picked into a Shotfarm template file (the format of resources/templates/*.json). Pure and
 * DOM-free: the Studio's "Register a template" dialog lists the inputs with it and builds the file,
 * and the engine's parseTemplateFile (through `templates.add`) stays the one judge of the result —
 * this module never decides that a template is valid.
 */

/** A literal input of a node (not a link to another node): what a template may expose as a parameter. */
export interface WorkflowInput {
  /** `nodeId.inputName`, the template's parameter path. */
  path: string;
  nodeId: string;
  classType: string;
  /** The node's title in the editor (`_meta.title`), when it has one. */
  title: string | null;
  input: string;
  value: string | number | boolean;
}

/** What a dropped file is: an API-format workflow (its inputs listed), a Shotfarm template file, or neither (the engine says why). */
export type WorkflowReading =
  | { kind: 'workflow'; workflow: Record<string, unknown>; inputs: WorkflowInput[] }
  | { kind: 'template'; template: Record<string, unknown>; workflow: Record<string, unknown>; inputs: WorkflowInput[] }
  | { kind: 'other' };

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function isApiNode(
  v: unknown,
): v is { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: unknown } } {
  return isRecord(v) && typeof v.class_type === 'string' && v.class_type !== '' && isRecord(v.inputs);
}

/** Every literal input of every node, in node-id order (numeric ids numerically), inputs as written. */
export function workflowInputs(workflow: Record<string, unknown>): WorkflowInput[] {
  const ids = Object.keys(workflow).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const out: WorkflowInput[] = [];
  for (const nodeId of ids) {
    const node = workflow[nodeId];
    if (!isApiNode(node)) continue;
    const title = typeof node._meta?.title === 'string' && node._meta.title.trim() !== '' ? node._meta.title : null;
    for (const [input, value] of Object.entries(node.inputs)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
      out.push({ path: `${nodeId}.${input}`, nodeId, classType: node.class_type, title, input, value });
    }
  }
  return out;
}

/** An API-format workflow: an object of nodes, each with a class_type and an inputs object. */
function isApiWorkflow(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && Object.keys(v).length > 0 && Object.values(v).every(isApiNode);
}

/** Reads a dropped file's text. Anything this cannot list is `other`: send it to the engine for its words. */
export function readWorkflowText(text: string): WorkflowReading {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { kind: 'other' };
  }
  if (isApiWorkflow(raw)) return { kind: 'workflow', workflow: raw, inputs: workflowInputs(raw) };
  if (isRecord(raw) && isApiWorkflow(raw.workflow))
    return { kind: 'template', template: raw, workflow: raw.workflow, inputs: workflowInputs(raw.workflow) };
  return { kind: 'other' };
}

/** Names for the inputs templates usually expose, by input name (and a text prompt by its node's title). */
const USUAL_NAMES: Readonly<Record<string, string>> = {
  seed: 'seed',
  noise_seed: 'seed',
  steps: 'steps',
  cfg: 'cfg',
  denoise: 'denoise',
  image: 'image',
  filename_prefix: 'filename_prefix',
  ckpt_name: 'checkpoint',
  width: 'width',
  height: 'height',
  length: 'frames',
  video_frames: 'frames',
  fps: 'fps',
};

const safeName = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '') || 'param';

/**
 * A parameter name to start from for an input: the usual one (`seed`, `image`; a text prompt is
 * `prompt`, or `negative` when its node's title says so), else the input's own name — made unique
 * against `taken` with the node id (`text_7`).
 */
export function suggestParameterName(
  i: Pick<WorkflowInput, 'input' | 'nodeId' | 'title'>,
  taken: ReadonlySet<string>,
): string {
  const base =
    i.input === 'text'
      ? /neg/i.test(i.title ?? '')
        ? 'negative'
        : 'prompt'
      : (USUAL_NAMES[i.input] ?? safeName(i.input));
  if (!taken.has(base)) return base;
  const withNode = `${base}_${safeName(i.nodeId)}`;
  let name = withNode;
  for (let n = 2; taken.has(name); n++) name = `${withNode}_${n}`;
  return name;
}

export interface TemplateDraft {
  name: string;
  stage: string;
  description?: string;
  vramGb?: number;
  tags?: string[];
  timeoutS?: number;
  /** Parameter name → `nodeId.inputName`. */
  parameters: Record<string, string>;
  workflow: Record<string, unknown>;
}

/** The template file's text (what `templates.add` takes), fields left out when the draft leaves them unset. */
export function buildTemplateFile(d: TemplateDraft): string {
  const tags = d.tags?.map((t) => t.trim()).filter(Boolean);
  const file: Record<string, unknown> = {
    name: d.name.trim(),
    stage: d.stage.trim(),
    ...(d.description?.trim() ? { description: d.description.trim() } : {}),
    ...(d.vramGb !== undefined ? { vram_gb: d.vramGb } : {}),
    ...(tags?.length ? { tags } : {}),
    ...(d.timeoutS !== undefined ? { timeout_s: d.timeoutS } : {}),
    parameters: d.parameters,
    workflow: d.workflow,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
