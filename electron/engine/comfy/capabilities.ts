// Pre-dispatch checks on /object_info (SPEC §3, protocol §8): is every class installed, and is
// every combo value (checkpoint, LoRA, VAE, sampler…) one the server offers? Pure.
import type { NodeInfo, ObjectInfo } from './schemas.js';

/** How an input is declared, after decoding the two combo encodings. */
export type InputSpec =
  | { kind: 'combo'; values: readonly unknown[] }
  | { kind: 'type'; type: string; options: Record<string, unknown> }
  | { kind: 'unknown' };

export type WorkflowProblem =
  /** `classType` is null when the node has no class_type at all. */
  | { kind: 'missing_node'; nodeId: string; classType: string | null }
  /** A string value not offered by a combo input — usually a model file missing on that server. */
  | { kind: 'missing_model'; nodeId: string; classType: string; input: string; value: string };

/**
 * Decodes `[type, options?]`: classic combo `[["a","b"], {...}]`, newer
 * `["COMBO", {options: ["a","b"]}]`, or a plain type such as `["INT", {min: 1}]`.
 */
export function decodeInputSpec(spec: unknown): InputSpec {
  if (!Array.isArray(spec) || spec.length === 0) return { kind: 'unknown' };
  const [head, rawOptions] = spec as unknown[];
  const options = isRecord(rawOptions) ? rawOptions : {};
  if (Array.isArray(head)) return { kind: 'combo', values: head };
  if (head === 'COMBO' && Array.isArray(options['options'])) return { kind: 'combo', values: options['options'] };
  if (typeof head === 'string') return { kind: 'type', type: head, options };
  return { kind: 'unknown' };
}

/** The raw spec of a required or optional input (hidden inputs are not user inputs). */
export function inputSpecOf(node: NodeInfo, input: string): unknown {
  return node.input.required?.[input] ?? node.input.optional?.[input];
}

/** Allowed values of a combo input, or null if the class/input is unknown or not a combo. */
export function comboValues(info: ObjectInfo, classType: string, input: string): readonly unknown[] | null {
  const node = info[classType];
  if (!node) return null;
  const spec = decodeInputSpec(inputSpecOf(node, input));
  return spec.kind === 'combo' ? spec.values : null;
}

export interface CheckOptions {
  /**
   * Skip an input, e.g. LoadImage's `image` when the file will be uploaded just before posting
   * (it is not in the list yet).
   */
  skipInput?: (classType: string, input: string) => boolean;
}

/**
 * Problems that would make the server reject the workflow, found without a GPU. Links
 * (`[nodeId, index]`) and non-string values are not checked; the server's own validation still
 * runs at POST time.
 */
export function checkWorkflowAgainstObjectInfo(
  workflow: Record<string, unknown>,
  objectInfo: ObjectInfo,
  opts: CheckOptions = {},
): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  for (const [nodeId, rawNode] of Object.entries(workflow)) {
    const node = isRecord(rawNode) ? rawNode : {};
    const classType = typeof node['class_type'] === 'string' ? node['class_type'] : null;
    const info = classType === null ? undefined : objectInfo[classType];
    if (classType === null || !info) {
      problems.push({ kind: 'missing_node', nodeId, classType });
      continue;
    }
    const inputs = isRecord(node['inputs']) ? node['inputs'] : {};
    for (const [input, value] of Object.entries(inputs)) {
      if (typeof value !== 'string') continue;
      if (opts.skipInput?.(classType, input)) continue;
      const spec = decodeInputSpec(inputSpecOf(info, input));
      if (spec.kind === 'combo' && !spec.values.includes(value)) {
        problems.push({ kind: 'missing_model', nodeId, classType, input, value });
      }
    }
  }
  return problems;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
