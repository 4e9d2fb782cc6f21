import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validate } from '../../electron/engine/comfy/responses.js';
import { ObjectInfoSchema, type ObjectInfo } from '../../electron/engine/comfy/schemas.js';
import {
  checkWorkflowAgainstObjectInfo,
  comboValues,
  decodeInputSpec,
} from '../../electron/engine/comfy/capabilities.js';

const FIXTURES = new URL('../fixtures/comfyui-recorded/', import.meta.url);

/** Merges every recorded GET /object_info/{cls} answer into one object_info map. */
function recordedObjectInfo(): ObjectInfo {
  const merged: ObjectInfo = {};
  for (const f of ['object_info_EmptyImage.json', 'object_info_SaveImage.json', 'object_info_other_nodes.json']) {
    const c = JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')) as {
      events: Array<{ kind: string; response?: { body: { json?: unknown } } }>;
    };
    for (const e of c.events)
      if (e.kind === 'http') Object.assign(merged, validate(ObjectInfoSchema, e.response?.body.json, f));
  }
  return merged;
}
const info = recordedObjectInfo();

// A newer-style node with the ["COMBO", {options}] encoding, as current servers send for V3 nodes.
const withNewCombo: ObjectInfo = {
  ...info,
  LoraLoader: {
    input: {
      required: {
        model: ['MODEL', {}],
        lora_name: ['COMBO', { options: ['hero_v2.safetensors', 'sub/style.safetensors'], multiselect: false }],
      },
    },
  },
  CheckpointLoaderSimple: {
    input: { required: { ckpt_name: [['sdxl/base.safetensors', 'sd15.ckpt'], { tooltip: 'x' }] } },
  },
};

test('recorded object_info covers the classes the fixtures use', () => {
  for (const cls of [
    'EmptyImage',
    'SaveImage',
    'ImageInvert',
    'ImageToMask',
    'ImageBlur',
    'ImageScale',
    'PreviewImage',
  ]) {
    assert.ok(info[cls], cls);
  }
  assert.equal(info['NoSuchNode'], undefined);
});

test('comboValues reads the classic [[values], {...}] encoding from recorded ImageToMask', () => {
  assert.deepEqual(comboValues(info, 'ImageToMask', 'channel'), ['red', 'green', 'blue', 'alpha']);
  assert.deepEqual(comboValues(info, 'ImageScale', 'crop'), ['disabled', 'center']);
});

test('comboValues reads the newer ["COMBO", {options}] encoding', () => {
  assert.deepEqual(comboValues(withNewCombo, 'LoraLoader', 'lora_name'), [
    'hero_v2.safetensors',
    'sub/style.safetensors',
  ]);
});

test('comboValues is null for non-combo inputs, unknown inputs and unknown classes', () => {
  assert.equal(comboValues(info, 'ImageBlur', 'blur_radius'), null);
  assert.equal(comboValues(info, 'ImageBlur', 'nope'), null);
  assert.equal(comboValues(info, 'NoSuchNode', 'x'), null);
});

test('decodeInputSpec tells plain types from combos and tolerates odd specs', () => {
  assert.deepEqual(decodeInputSpec(['INT', { min: 1 }]), { kind: 'type', type: 'INT', options: { min: 1 } });
  assert.deepEqual(decodeInputSpec(['IMAGE']), { kind: 'type', type: 'IMAGE', options: {} });
  assert.deepEqual(decodeInputSpec('PROMPT'), { kind: 'unknown' });
  assert.deepEqual(decodeInputSpec([]), { kind: 'unknown' });
});

test('a valid recorded workflow has no problems', () => {
  const wf = {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'red' } },
    '3': {
      class_type: 'ImageScale',
      inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 8, height: 8, crop: 'center' },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'x' } },
  };
  assert.deepEqual(checkWorkflowAgainstObjectInfo(wf, info), []);
});

test('missing classes and missing class_type are reported as missing_node', () => {
  const wf = {
    '1': { class_type: 'VHS_VideoCombine', inputs: {} },
    '2': { inputs: {} },
  };
  assert.deepEqual(checkWorkflowAgainstObjectInfo(wf, info), [
    { kind: 'missing_node', nodeId: '1', classType: 'VHS_VideoCombine' },
    { kind: 'missing_node', nodeId: '2', classType: null },
  ]);
});

test('a combo value not offered (either encoding) is missing_model; free strings are not', () => {
  const wf = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl/missing.safetensors' } },
    '10': { class_type: 'LoraLoader', inputs: { model: ['4', 0], lora_name: 'hero_v3.safetensors' } },
    '11': { class_type: 'LoraLoader', inputs: { model: ['4', 0], lora_name: 'sub/style.safetensors' } },
    '2': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'purple' } },
    '9': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'anything goes' } },
  };
  // Object.entries lists integer-like keys in ascending order.
  assert.deepEqual(checkWorkflowAgainstObjectInfo(wf, withNewCombo), [
    { kind: 'missing_model', nodeId: '2', classType: 'ImageToMask', input: 'channel', value: 'purple' },
    {
      kind: 'missing_model',
      nodeId: '4',
      classType: 'CheckpointLoaderSimple',
      input: 'ckpt_name',
      value: 'sdxl/missing.safetensors',
    },
    { kind: 'missing_model', nodeId: '10', classType: 'LoraLoader', input: 'lora_name', value: 'hero_v3.safetensors' },
  ]);
});

test('skipInput leaves out inputs the caller will satisfy before posting', () => {
  const wf = { '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'later.safetensors' } } };
  assert.deepEqual(
    checkWorkflowAgainstObjectInfo(wf, withNewCombo, {
      skipInput: (c, i) => c === 'CheckpointLoaderSimple' && i === 'ckpt_name',
    }),
    [],
  );
});

/** A template with a model parameter (a combo: part of the capability key) and a free-text one. */
function checkpointTemplate() {
  return {
    id: 7,
    name: 't',
    version: 1,
    stage: 'keyframe',
    hash: 'h',
    vramGb: 8,
    tags: [],
    timeoutS: 60,
    createdAt: 0,
    workflow: {
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd15.ckpt' } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'x', clip: ['4', 1] } },
    },
    parameters: { checkpoint: '4.ckpt_name', prompt: '6.text' },
  };
}

test('a capability answer is remembered while the workstations hold the same node lists, and worked out again when one changes', async () => {
  const { CapabilityAnswers } = await import('../../electron/engine/scheduler/capability-answers.js');
  const template = checkpointTemplate();
  const answers = new CapabilityAnswers();
  const params = { checkpoint: 'sd15.ckpt' };
  const lists = [
    { id: 'a', info: withNewCombo },
    { id: 'b', info: null },
  ];
  const first = answers.answer(lists, template, params);
  // The same lists, as another array of other objects (each facts snapshot builds its own): remembered.
  assert.equal(
    answers.answer(
      lists.map((l) => ({ ...l })),
      template,
      params,
    ),
    first,
  );
  // A workstation whose list is not known yet does not count.
  assert.equal(answers.answer([{ id: 'a', info: withNewCombo }], template, params), first);
  // Another list object, another workstation, a list becoming known: worked out again.
  assert.notEqual(answers.answer([{ id: 'a', info: { ...withNewCombo } }], template, params), first);
  assert.notEqual(answers.answer([{ id: 'c', info: withNewCombo }], template, params), first);
  const both = answers.answer(
    [
      { id: 'a', info: withNewCombo },
      { id: 'b', info },
    ],
    template,
    params,
  );
  assert.notEqual(both, first);
  assert.deepEqual([...both.problems.keys()].sort(), ['a', 'b']);
  assert.deepEqual([...answers.answer([{ id: 'a', info: withNewCombo }], template, params).problems.keys()], ['a']);
});

test('jobs that differ only in free text share a capability key; a model parameter changes it', async () => {
  const { ComboKeys, CapabilityCache } = await import('../../electron/engine/scheduler/capability-check.js');
  const template = checkpointTemplate();
  const keys = new ComboKeys([withNewCombo]);
  const a = keys.keyOf(template, { prompt: 'a castle', checkpoint: 'sd15.ckpt' });
  assert.equal(keys.keyOf(template, { prompt: 'a dragon', checkpoint: 'sd15.ckpt' }), a);
  assert.notEqual(keys.keyOf(template, { prompt: 'a castle', checkpoint: 'missing.safetensors' }), a);
  const cache = new CapabilityCache();
  const missing = cache
    .problems(withNewCombo, template, { checkpoint: 'missing.safetensors' })
    .filter((p) => p.kind === 'missing_model');
  assert.deepEqual(
    missing.map((p) => p.kind === 'missing_model' && p.value),
    ['missing.safetensors'],
  );
  assert.equal(
    cache.problems(withNewCombo, template, { checkpoint: 'sd15.ckpt' }).filter((p) => p.kind === 'missing_model')
      .length,
    0,
  );
});
