import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, isOutOfMemory, type AttemptObservation } from '../../electron/engine/pools/comfy-lan/failure.js';

const I = 'gpu-01';

/** SPEC §5, row by row, for both protocol generations. */
const table: { name: string; obs: AttemptObservation; cls: string; instanceLevel: boolean; reason: RegExp }[] = [
  {
    name: '400 validation (prompt_outputs_failed_validation) is permanent with the node errors',
    obs: {
      kind: 'rejected',
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: '',
        extraInfo: {},
      },
      nodeErrors: {
        '10': {
          class_type: 'LoraLoader',
          dependent_outputs: ['9'],
          errors: [
            {
              type: 'value_not_in_list',
              message: 'Value not in list',
              details: "lora_name: 'hero_v3.safetensors' not in (list of length 57)",
              extra_info: {},
            },
          ],
        },
      } as never,
    },
    cls: 'permanent',
    instanceLevel: false,
    reason: /LoraLoader \(node 10\): Value not in list: lora_name: 'hero_v3\.safetensors'/,
  },
  {
    name: '400 unknown node on 0.3.x (invalid_prompt "… does not exist") is permanent, naming the node',
    obs: {
      kind: 'rejected',
      error: {
        type: 'invalid_prompt',
        message: 'Cannot execute because node VHS_VideoCombine does not exist.',
        details: "Node ID '#12'",
        extraInfo: {},
      },
      nodeErrors: {},
    },
    cls: 'permanent',
    instanceLevel: false,
    reason: /node `VHS_VideoCombine` is not installed on gpu-01/,
  },
  {
    name: '400 unknown node on newer servers (missing_node_type) is permanent, naming the node',
    obs: {
      kind: 'rejected',
      error: {
        type: 'missing_node_type',
        message: "Node 'Video Combine' not found.",
        details: "Node ID '#12'",
        extraInfo: { node_id: '12', class_type: 'VHS_VideoCombine', node_title: 'Video Combine' },
      },
      nodeErrors: {},
    },
    cls: 'permanent',
    instanceLevel: false,
    reason: /node `VHS_VideoCombine` is not installed on gpu-01/,
  },
  {
    name: 'a pre-dispatch check failing everywhere is permanent',
    obs: { kind: 'unrunnable', problems: ['node `VHS_VideoCombine` is not installed on any workstation'] },
    cls: 'permanent',
    instanceLevel: false,
    reason: /VHS_VideoCombine/,
  },
  {
    name: 'an out-of-memory execution_error (cudaMallocAsync text) is transient OOM',
    obs: {
      kind: 'execution_error',
      nodeId: '3',
      nodeType: 'KSampler',
      exceptionType: 'torch.OutOfMemoryError',
      exceptionMessage:
        'Allocation on device 0 would exceed allowed memory. (out of memory)\nThis error means you ran out of memory on your GPU.\n\nTIPS: …\n',
    },
    cls: 'oom',
    instanceLevel: false,
    reason: /out of GPU memory in KSampler \(node 3\) on gpu-01/,
  },
  {
    name: 'an old-PyTorch OOM (torch.cuda.OutOfMemoryError, native allocator text) is transient OOM',
    obs: {
      kind: 'execution_error',
      nodeId: '8',
      nodeType: 'VAEDecode',
      exceptionType: 'torch.cuda.OutOfMemoryError',
      exceptionMessage: 'CUDA out of memory. Tried to allocate 2.00 GiB',
    },
    cls: 'oom',
    instanceLevel: false,
    reason: /out of GPU memory in VAEDecode/,
  },
  {
    name: 'any other execution_error is permanent with node, exception type and first line',
    obs: {
      kind: 'execution_error',
      nodeId: '1',
      nodeType: 'ImageToMask',
      exceptionType: 'IndexError',
      exceptionMessage: 'index 3 is out of bounds for dimension with size 3\n',
    },
    cls: 'permanent',
    instanceLevel: false,
    reason: /^ImageToMask \(node 1\) failed: IndexError: index 3 is out of bounds/,
  },
  {
    name: 'host RAM exhaustion is not GPU OOM: permanent',
    obs: {
      kind: 'execution_error',
      nodeId: '4',
      nodeType: 'CheckpointLoaderSimple',
      exceptionType: 'RuntimeError',
      exceptionMessage:
        '[enforce fail at alloc_cpu.cpp:114] DefaultCPUAllocator: not enough memory: you tried to allocate 123 bytes.',
    },
    cls: 'permanent',
    instanceLevel: false,
    reason: /DefaultCPUAllocator/,
  },
  {
    name: 'a 5xx is transient and counts against the instance',
    obs: {
      kind: 'transport',
      route: 'POST /prompt',
      failure: { kind: 'http', status: 500, body: null, bodyText: '500 Internal Server Error' },
    },
    cls: 'transient',
    instanceLevel: true,
    reason: /gpu-01 answered POST \/prompt with HTTP 500/,
  },
  {
    name: 'connection refused is transient and counts against the instance',
    obs: { kind: 'transport', route: 'GET /queue', failure: { kind: 'refused' } },
    cls: 'transient',
    instanceLevel: true,
    reason: /gpu-01 did not answer GET \/queue: connection refused/,
  },
  {
    name: 'connection reset is transient',
    obs: { kind: 'transport', route: 'POST /prompt', failure: { kind: 'reset' } },
    cls: 'transient',
    instanceLevel: true,
    reason: /connection reset/,
  },
  {
    name: 'a request timeout is transient',
    obs: { kind: 'transport', route: 'GET /history', failure: { kind: 'timeout', afterMs: 10000 } },
    cls: 'transient',
    instanceLevel: true,
    reason: /no answer within 10000 ms/,
  },
  {
    name: 'an interrupt we did not ask for is transient',
    obs: { kind: 'interrupted', requested: false, nodeId: '3', nodeType: 'KSampler' },
    cls: 'transient',
    instanceLevel: false,
    reason: /Cancel pressed in the ComfyUI page/,
  },
  {
    name: 'no end before the job timeout is a timeout',
    obs: { kind: 'timeout', which: 'absolute', seconds: 480 },
    cls: 'timeout',
    instanceLevel: false,
    reason: /within its 480 s timeout/,
  },
  {
    name: 'no progress for the stall timeout is a timeout',
    obs: { kind: 'timeout', which: 'stall', seconds: 120 },
    cls: 'timeout',
    instanceLevel: false,
    reason: /no progress for 120 s/,
  },
  {
    name: 'an instance unreachable past the grace time loses the attempt (transient)',
    obs: { kind: 'lost', seconds: 60 },
    cls: 'transient',
    instanceLevel: true,
    reason: /lost contact with gpu-01 for 60 s/,
  },
  {
    name: 'a prompt gone from queue and history (server restarted) is transient',
    obs: { kind: 'vanished' },
    cls: 'transient',
    instanceLevel: true,
    reason: /disappeared from gpu-01/,
  },
  {
    name: 'a full disk while storing outputs is transient and says so',
    obs: { kind: 'collect_failed', detail: 'The disk is full', diskFull: true },
    cls: 'transient',
    instanceLevel: false,
    reason: /outputs could not be stored: The disk is full/,
  },
];

for (const row of table) {
  test(row.name, () => {
    const c = classify(row.obs, I);
    assert.equal(c.errorClass, row.cls);
    assert.equal(c.instanceLevel, row.instanceLevel);
    assert.match(c.reason, row.reason);
  });
}

test('OOM detection follows ComfyUI is_oom: types, marker text, AcceleratorError with out of memory', () => {
  assert.equal(isOutOfMemory('torch.OutOfMemoryError', ''), true);
  assert.equal(isOutOfMemory('RuntimeError', 'x\nThis error means you ran out of memory on your GPU.\n'), true);
  assert.equal(isOutOfMemory('torch.AcceleratorError', 'CUDA error: out of memory'), true);
  assert.equal(isOutOfMemory('torch.AcceleratorError', 'CUDA error: illegal memory access'), false);
  assert.equal(isOutOfMemory('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied'), false);
});
