// How a run stops early, and what it reports: an interrupt (cooperative, seen at a node start or a
// sampler step) or a node exception, with the `execution_interrupted` / `execution_error` data of
// ComfyUI 0.3.64 (execution_error.json, interrupt_*.json; comfyui-protocol.md §3, §11).

import type { NodeClass } from './node-catalog.js';
import type { PromptRun } from './prompt-run.js';
import type { Graph } from './validate.js';
import { isLink } from './validate.js';

export const OOM_MESSAGE =
  'Allocation on device 0 would exceed allowed memory. (out of memory)\n' +
  'Currently allocated     : 19.71 GiB\nRequested               : 5.00 GiB\nDevice limit            : 23.99 GiB\n' +
  'Free (according to CUDA): 0 bytes\nPyTorch limit (set by user-supplied memory fraction)\n                        : 17179869184.00 GiB\n' +
  'This error means you ran out of memory on your GPU.\n\n' +
  'TIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.\n';
export const RUNTIME_MESSAGE =
  'Given groups=1, weight of size [320, 4, 3, 3], expected input[1, 16, 128, 128] to have 4 channels, but got 16 channels instead\n';

const TRACEBACK = [
  '  File "<COMFYUI_ROOT>/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(prompt_id, unique_id, obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
  '  File "<COMFYUI_ROOT>/execution.py", line 277, in process_inputs\n    result = f(**inputs)\n',
];

export class Interrupted extends Error {
  constructor(readonly nodeId: string) {
    super('interrupted');
  }
}

export class Failed extends Error {
  constructor(
    readonly nodeId: string,
    readonly exceptionType: string,
    readonly text: string,
  ) {
    super(text);
  }
}

/** A sampler ran out of VRAM: ComfyUI unloads the models (not the node cache) before reporting. */
export function outOfMemory(run: PromptRun, id: string): Failed {
  run.host.vram.unload(false);
  return new Failed(id, 'torch.OutOfMemoryError', OOM_MESSAGE);
}

/** Reports an interrupt or a node failure; anything else (Aborted, a bug) is not ours to report. */
export function reportStop(run: PromptRun, e: unknown, now: () => number): 'error' | 'interrupted' {
  if (e instanceof Interrupted) {
    const data = {
      prompt_id: run.promptId,
      node_id: e.nodeId,
      node_type: String(run.graph[e.nodeId]?.class_type),
      executed: run.executed,
      timestamp: now(),
    };
    run.addMessage('execution_interrupted', data, true);
    return 'interrupted';
  }
  if (e instanceof Failed) {
    const node = run.graph[e.nodeId]!;
    // execution.py `execute`: two logging.error calls, the second the whole formatted traceback in one write.
    run.host.log.info(`!!! Exception during processing !!! ${e.text.split('\n')[0]}`);
    run.host.log.info(
      `Traceback (most recent call last):\n${TRACEBACK.join('')}${e.exceptionType}: ${e.text.trimEnd()}`,
    );
    run.addMessage(
      'execution_error',
      {
        prompt_id: run.promptId,
        node_id: e.nodeId,
        node_type: String(node.class_type),
        executed: run.executed,
        exception_message: e.text,
        exception_type: e.exceptionType,
        traceback: [...TRACEBACK],
        current_inputs: currentInputs(node.inputs ?? {}, run.graph, run.host.classes),
        current_outputs: Object.keys(run.graph),
        timestamp: now(),
      },
      false,
    );
    return 'error';
  }
  throw e;
}

/** `current_inputs`: input → list of values, non-scalars stringified like Python's repr. */
function currentInputs(
  inputs: Record<string, unknown>,
  graph: Graph,
  classes: Map<string, NodeClass>,
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (!isLink(v)) {
      out[k] = [v];
      continue;
    }
    const type = classes.get(String(graph[String(v[0])]?.class_type))?.info.output[Number(v[1])] ?? 'object';
    out[k] = [
      type === 'MODEL'
        ? '<comfy.model_patcher.ModelPatcher object at 0x7f3a2c1d5e10>'
        : type === 'IMAGE' || type === 'MASK' || type === 'LATENT'
          ? 'tensor([[[[0.0039, 0.2784, 0.8902],\n          ...]]])'
          : `<${type} object at 0x7f3a2c1d6f20>`,
    ];
  }
  return out;
}
