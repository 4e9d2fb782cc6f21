/**
 * ComfyUI API-format workflows: recognising them (and refusing the UI format), and setting named
 * parameters. A template's parameters are `nodeId.inputName` paths; a shot sets parameters and
 * nothing else in the workflow changes.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';

export interface ApiNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}
export type ApiWorkflow = Record<string, ApiNode>;

/** True for the format the ComfyUI editor saves (with `nodes` and `links` arrays). */
export function isUiFormat(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.nodes) && Array.isArray(v.links);
}

export const UI_FORMAT_MESSAGE =
  'This is a ComfyUI editor (UI-format) workflow, with "nodes" and "links" arrays. Shotfarm needs the API format: in ComfyUI choose Workflow → Export (API) and use that file.';

/** Checks the API format node by node and returns it typed; errors name the node. */
export function asApiWorkflow(value: unknown, where: string): ApiWorkflow {
  if (isUiFormat(value)) throw new ShotfarmError('bad_input', `${where}: ${UI_FORMAT_MESSAGE}`);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ShotfarmError('bad_input', `${where}: the workflow must be a JSON object of nodes keyed by node id.`);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new ShotfarmError('bad_input', `${where}: the workflow has no nodes.`);
  for (const [id, node] of entries) {
    const n = node as Partial<ApiNode> | null;
    if (!n || typeof n !== 'object' || typeof n.class_type !== 'string' || n.class_type === '') {
      throw new ShotfarmError('bad_input', `${where}: node "${id}" has no class_type; is this an API-format export?`);
    }
    if (!n.inputs || typeof n.inputs !== 'object' || Array.isArray(n.inputs)) {
      throw new ShotfarmError('bad_input', `${where}: node "${id}" (${n.class_type}) has no "inputs" object.`);
    }
  }
  return value as ApiWorkflow;
}

export function splitPath(path: string): { nodeId: string; input: string } {
  const dot = path.indexOf('.');
  return { nodeId: path.slice(0, dot), input: path.slice(dot + 1) };
}

/** Returns a message when `path` does not name an existing input of an existing node. */
export function checkPath(workflow: ApiWorkflow, path: string): string | null {
  const { nodeId, input } = splitPath(path);
  const node = workflow[nodeId];
  if (!node) return `node ${nodeId} is not in the workflow`;
  if (!(input in node.inputs)) return `node ${nodeId} (${node.class_type}) has no input "${input}"`;
  if (Array.isArray(node.inputs[input])) return `${path} is a link to another node, not a value`;
  return null;
}

/**
 * Returns a copy of the workflow with each named parameter set. Throws naming the parameter and
 * its path when a name is unknown or a path does not resolve.
 */
export function applyParameters(
  workflow: ApiWorkflow,
  paths: Readonly<Record<string, string>>,
  values: Readonly<Record<string, ParamValue>>,
): ApiWorkflow {
  const out = structuredClone(workflow);
  for (const [name, value] of Object.entries(values)) {
    const path = paths[name];
    if (!path) {
      throw new ShotfarmError(
        'bad_input',
        `Parameter "${name}" is not defined by the template (known: ${Object.keys(paths).join(', ') || 'none'}).`,
      );
    }
    const problem = checkPath(out, path);
    if (problem) throw new ShotfarmError('bad_input', `Parameter "${name}" → ${path}: ${problem}.`);
    const { nodeId, input } = splitPath(path);
    (out[nodeId] as ApiNode).inputs[input] = value;
  }
  return out;
}
