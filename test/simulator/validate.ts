// A port of ComfyUI's `validate_prompt` / `validate_inputs` (execution.py), producing the same error
// bodies as the recordings (validation_error_*.json, unknown_class_type.json). Protocol '0.3' answers an
// unknown class with `invalid_prompt`; 'new' with `missing_node_type` (comfyui-protocol.md §2).

import { inputConfig, type InputSpec, type NodeClass } from './node-catalog.js';

export type Graph = Record<
  string,
  { class_type?: unknown; inputs?: Record<string, unknown>; _meta?: { title?: string } }
>;

export interface ErrorBody {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}
export interface NodeError {
  errors: ErrorBody[];
  dependent_outputs: string[];
  class_type: string;
}

export type ValidationResult =
  | { ok: true; outputs: string[]; nodeErrors: Record<string, NodeError> }
  | { ok: false; error: ErrorBody; nodeErrors: Record<string, NodeError> };

type Verdict = { valid: boolean; errors: ErrorBody[] };

export interface ValidateOptions {
  protocol: '0.3' | 'new';
  classes: Map<string, NodeClass>;
  partialTargets?: string[] | null;
}

export function isLink(v: unknown): v is [string, number] {
  return Array.isArray(v);
}

/** Python's `str()` of a scalar, used in error texts. */
export function pyStr(v: unknown, asFloat = false): string {
  if (typeof v === 'number') return asFloat && Number.isInteger(v) ? `${v}.0` : String(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null) return 'None';
  return String(v);
}

function pyList(items: string[]): string {
  return `[${items.map((s) => `'${s}'`).join(', ')}]`;
}

export function validatePrompt(graph: Graph, opts: ValidateOptions): ValidationResult {
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(graph)) {
    const cls = typeof node === 'object' && node !== null ? node.class_type : undefined;
    if (cls === undefined) {
      return {
        ok: false,
        nodeErrors: {},
        error:
          opts.protocol === '0.3'
            ? {
                type: 'invalid_prompt',
                message: 'Cannot execute because a node is missing the class_type property.',
                details: `Node ID '#${id}'`,
                extra_info: {},
              }
            : {
                type: 'missing_node_type',
                message: `Node '${node?._meta?.title ?? id}' has no class_type. The workflow may be corrupted or a custom node is missing.`,
                details: `Node ID '#${id}'`,
                extra_info: { node_id: id, class_type: null, node_title: node?._meta?.title ?? id },
              },
      };
    }
    const def = opts.classes.get(String(cls));
    if (!def) {
      return {
        ok: false,
        nodeErrors: {},
        error:
          opts.protocol === '0.3'
            ? {
                type: 'invalid_prompt',
                message: `Cannot execute because node ${String(cls)} does not exist.`,
                details: `Node ID '#${id}'`,
                extra_info: {},
              }
            : {
                type: 'missing_node_type',
                message: `Node '${node._meta?.title ?? String(cls)}' not found. The custom node may not be installed.`,
                details: `Node ID '#${id}'`,
                extra_info: { node_id: id, class_type: String(cls), node_title: node._meta?.title ?? String(cls) },
              },
      };
    }
    if (def.info.output_node && (!opts.partialTargets || opts.partialTargets.includes(id))) outputs.push(id);
  }
  if (outputs.length === 0) {
    return {
      ok: false,
      nodeErrors: {},
      error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
    };
  }

  const validated = new Map<string, Verdict>();
  const good: string[] = [];
  const failedOwn: Array<[string, ErrorBody[]]> = [];
  const nodeErrors: Record<string, NodeError> = {};
  for (const o of outputs) {
    let verdict: Verdict;
    try {
      verdict = validateInputs(graph, o, validated, opts.classes);
    } catch (e) {
      // Same as ComfyUI: a KeyError (link to a node that is not in the prompt) escapes to here.
      const missing = e instanceof MissingNode ? `'${e.nodeId}'` : String(e);
      verdict = {
        valid: false,
        errors: [
          {
            type: 'exception_during_validation',
            message: 'Exception when validating node',
            details: missing,
            extra_info: {
              exception_type: 'KeyError',
              traceback: [
                '  File "<COMFYUI_ROOT>/execution.py", line 1010, in validate_prompt\n    m = await validate_inputs(prompt_id, prompt, o, validated)\n',
                '  File "<COMFYUI_ROOT>/execution.py", line 788, in validate_inputs\n    o_class_type = prompt[o_id][\'class_type\']\n',
              ],
            },
          },
        ],
      };
      validated.set(o, verdict);
    }
    if (verdict.valid) {
      good.push(o);
      continue;
    }
    if (verdict.errors.length > 0) failedOwn.push([o, verdict.errors]);
    for (const [nodeId, v] of validated) {
      if (v.valid || v.errors.length === 0) continue;
      nodeErrors[nodeId] ??= { errors: v.errors, dependent_outputs: [], class_type: String(graph[nodeId]?.class_type) };
      nodeErrors[nodeId].dependent_outputs.push(o);
    }
  }
  if (good.length === 0) {
    // Only the output nodes' own errors make it into `details` (upstream failures leave it empty).
    const details = failedOwn.flatMap(([, errs]) => errs.map((e) => `${e.message}: ${e.details}`)).join('\n');
    return {
      ok: false,
      nodeErrors,
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details,
        extra_info: {},
      },
    };
  }
  return { ok: true, outputs: good, nodeErrors };
}

class MissingNode extends Error {
  constructor(readonly nodeId: string) {
    super(`'${nodeId}'`);
  }
}

function validateInputs(
  graph: Graph,
  id: string,
  validated: Map<string, Verdict>,
  classes: Map<string, NodeClass>,
): Verdict {
  const seen = validated.get(id);
  if (seen) return seen;
  const node = graph[id];
  if (!node) throw new MissingNode(id);
  const def = classes.get(String(node.class_type));
  if (!def) throw new MissingNode(id);
  const inputs = (node.inputs ??= {});
  const errors: ErrorBody[] = [];
  let valid = true;
  const specs: Array<[string, InputSpec, boolean]> = [
    ...Object.entries(def.info.input.required).map(([k, s]): [string, InputSpec, boolean] => [k, s, true]),
    ...Object.entries(def.info.input.optional ?? {}).map(([k, s]): [string, InputSpec, boolean] => [k, s, false]),
  ];
  for (const [name, spec, required] of specs) {
    const [type, options = {}] = spec;
    const info = inputConfig(spec);
    if (!(name in inputs)) {
      if (required)
        errors.push({
          type: 'required_input_missing',
          message: 'Required input is missing',
          details: name,
          extra_info: { input_name: name },
        });
      continue;
    }
    let val = inputs[name];
    if (Array.isArray(val)) {
      if (val.length !== 2) {
        errors.push({
          type: 'bad_linked_input',
          message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
          details: name,
          extra_info: { input_name: name, input_config: info, received_value: val },
        });
        continue;
      }
      const srcId = String(val[0]);
      const src = graph[srcId];
      if (!src) throw new MissingNode(srcId);
      const srcDef = classes.get(String(src.class_type));
      const received = srcDef?.info.output[Number(val[1])];
      if (typeof type === 'string' && received !== undefined && !typesMatch(received, type)) {
        errors.push({
          type: 'return_type_mismatch',
          message: 'Return type mismatch between linked nodes',
          details: `${name}, received_type(${received}) mismatch input_type(${type})`,
          extra_info: { input_name: name, input_config: info, received_type: received, linked_node: val },
        });
        continue;
      }
      if (!validateInputs(graph, srcId, validated, classes).valid) valid = false;
      continue;
    }
    if (type === 'INT' || type === 'FLOAT') {
      const n = typeof val === 'string' && val.trim() !== '' ? Number(val) : val;
      if (typeof n !== 'number' || Number.isNaN(n)) {
        errors.push({
          type: 'invalid_input_type',
          message: `Failed to convert an input value to a ${type} value`,
          details: `${name}, ${pyStr(val)}, invalid literal`,
          extra_info: {
            input_name: name,
            input_config: info,
            received_value: val,
            exception_message: 'invalid literal',
          },
        });
        continue;
      }
      val = type === 'INT' ? Math.trunc(n) : n;
      inputs[name] = val; // ComfyUI coerces in place
      const min = options['min'];
      const max = options['max'];
      if (typeof min === 'number' && (val as number) < min) {
        errors.push({
          type: 'value_smaller_than_min',
          message: `Value ${pyStr(val, type === 'FLOAT')} smaller than min of ${pyStr(min, type === 'FLOAT')}`,
          details: name,
          extra_info: { input_name: name, input_config: info, received_value: val },
        });
        continue;
      }
      if (typeof max === 'number' && (val as number) > max) {
        errors.push({
          type: 'value_bigger_than_max',
          message: `Value ${pyStr(val, type === 'FLOAT')} bigger than max of ${pyStr(max, type === 'FLOAT')}`,
          details: name,
          extra_info: { input_name: name, input_config: info, received_value: val },
        });
        continue;
      }
    }
    if (Array.isArray(type) && !def.traits.customValidated?.includes(name) && !type.includes(val as string)) {
      const long = type.length > 20;
      errors.push({
        type: 'value_not_in_list',
        message: 'Value not in list',
        details: `${name}: '${pyStr(val)}' not in ${long ? `(list of length ${type.length})` : pyList(type)}`,
        extra_info: { input_name: name, input_config: long ? null : info, received_value: val },
      });
      continue;
    }
    if (def.traits.customValidated?.includes(name) && Array.isArray(type) && !type.includes(val as string)) {
      errors.push({
        type: 'custom_validation_failed',
        message: 'Custom validation failed for node',
        details: `${name} - Invalid image file: ${pyStr(val)}`,
        extra_info: { input_name: name, input_config: info, received_value: val },
      });
    }
  }
  const verdict: Verdict = { valid: valid && errors.length === 0, errors };
  validated.set(id, verdict);
  return verdict;
}

function typesMatch(received: string, wanted: string): boolean {
  if (received === '*' || wanted === '*') return true;
  const r = new Set(received.split(','));
  return wanted.split(',').some((t) => r.has(t));
}
