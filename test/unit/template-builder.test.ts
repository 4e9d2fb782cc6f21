import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  buildTemplateFile,
  readWorkflowText,
  suggestParameterName,
  workflowInputs,
} from '../../shared/template-builder.js';
import { RESOURCES } from '../helpers/engine.js';

const template = JSON.parse(readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8')) as {
  workflow: Record<string, unknown>;
};

test("a workflow's literal inputs are listed node by node (numeric ids in order); links to other nodes are not", () => {
  const inputs = workflowInputs(template.workflow);
  assert.deepEqual(
    inputs.slice(0, 3).map((i) => i.path),
    ['3.seed', '3.steps', '3.cfg'],
  );
  assert.ok(inputs.every((i) => !Array.isArray(i.value)));
  assert.ok(!inputs.some((i) => i.path === '3.model' || i.path === '11.pixels'), 'links are not parameters');
  const positive = inputs.find((i) => i.path === '6.text');
  assert.deepEqual(
    [positive?.classType, positive?.title, positive?.value],
    ['CLIPTextEncode', 'Positive', 'a cinematic still'],
  );
  assert.ok(inputs.findIndex((i) => i.nodeId === '10') > inputs.findIndex((i) => i.nodeId === '9'), '10 after 9');
});

test('a dropped file reads as an API workflow, a Shotfarm template, or something only the engine can explain', () => {
  const cases: [string, string][] = [
    [JSON.stringify(template.workflow), 'workflow'],
    [JSON.stringify(template), 'template'],
    [`\uFEFF${JSON.stringify(template.workflow)}`, 'workflow'],
    ['{"nodes": [], "links": []}', 'other'],
    ['{ "3": { "class_type": "KSampler" ', 'other'],
    ['{"3": {"inputs": {}}}', 'other'],
    ['{}', 'other'],
    ['[1, 2]', 'other'],
  ];
  for (const [text, kind] of cases) assert.equal(readWorkflowText(text).kind, kind, text.slice(0, 40));
});

test('parameter names start from the usual ones and stay unique', () => {
  const none = new Set<string>();
  const cases: [{ input: string; nodeId: string; title: string | null }, ReadonlySet<string>, string][] = [
    [{ input: 'seed', nodeId: '3', title: null }, none, 'seed'],
    [{ input: 'noise_seed', nodeId: '3', title: null }, none, 'seed'],
    [{ input: 'text', nodeId: '6', title: 'Positive' }, none, 'prompt'],
    [{ input: 'text', nodeId: '7', title: 'Negative prompt' }, none, 'negative'],
    [{ input: 'text', nodeId: '12', title: null }, new Set(['prompt']), 'prompt_12'],
    [{ input: 'ckpt_name', nodeId: '4', title: null }, none, 'checkpoint'],
    [{ input: 'Sampler Name', nodeId: '3', title: null }, none, 'sampler_name'],
    [{ input: 'seed', nodeId: '3', title: null }, new Set(['seed', 'seed_3']), 'seed_3_2'],
  ];
  for (const [input, taken, name] of cases)
    assert.equal(suggestParameterName(input, taken), name, JSON.stringify(input));
});

test('the built file is the template file format, with unset fields left out', () => {
  const text = buildTemplateFile({
    name: ' my-keyframe ',
    stage: 'keyframe',
    tags: ['img2img', ' '],
    vramGb: 10,
    parameters: { prompt: '6.text', seed: '3.seed' },
    workflow: template.workflow,
  });
  const file = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(file), ['name', 'stage', 'vram_gb', 'tags', 'parameters', 'workflow']);
  assert.deepEqual([file.name, file.tags, file.vram_gb], ['my-keyframe', ['img2img'], 10]);
  assert.deepEqual(file.workflow, template.workflow);
});
