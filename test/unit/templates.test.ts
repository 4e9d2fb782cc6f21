import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseTemplateFile } from '../../electron/engine/templates/template-file.js';
import { applyParameters } from '../../electron/engine/templates/workflow.js';
import { ShotfarmError } from '../../shared/errors.js';
import { RESOURCES } from '../helpers/engine.js';

const keyframe = readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8');

function rejects(content: string, pattern: RegExp): void {
  assert.throws(
    () => parseTemplateFile(content, 'bad.json'),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError, String(err));
      assert.equal(err.code, 'bad_input');
      assert.match(err.message, pattern);
      return true;
    },
  );
}

test('the sample templates parse, with stage defaults and a stable hash', () => {
  const a = parseTemplateFile(keyframe, 'keyframe-img2img.json');
  const b = parseTemplateFile(JSON.stringify(JSON.parse(keyframe), null, 4), 'same.json');
  assert.equal(a.name, 'keyframe-img2img');
  assert.equal(a.vramGb, 10);
  assert.equal(a.hash, b.hash, 'formatting does not change the hash');
  assert.match(a.hash, /^[0-9a-f]{64}$/);
});

test('a UI-format workflow is refused with a message telling the user to export the API format', () => {
  const ui = JSON.stringify({
    last_node_id: 9,
    nodes: [{ id: 3, type: 'KSampler' }],
    links: [[1, 4, 0, 3, 0, 'MODEL']],
    version: 0.4,
  });
  rejects(ui, /Export \(API\)/);
  const wrapped = JSON.parse(keyframe);
  wrapped.workflow = JSON.parse(ui);
  rejects(JSON.stringify(wrapped), /UI-format.*Export \(API\)/s);
});

test('a parameter path that does not resolve is named in the error', () => {
  const t = JSON.parse(keyframe);
  t.parameters.seed = '33.seed';
  t.parameters.cfg = '3.cfg_scale';
  rejects(
    JSON.stringify(t),
    /parameter "seed" → 33\.seed: node 33 is not in the workflow[\s\S]*parameter "cfg" → 3\.cfg_scale: node 3 \(KSampler\) has no input "cfg_scale"/,
  );
});

test('a parameter pointing at a link is refused', () => {
  const t = JSON.parse(keyframe);
  t.parameters.model = '3.model';
  rejects(JSON.stringify(t), /3\.model is a link/);
});

test('broken JSON is reported with its line and column', () => {
  rejects('{\n  "name": "x",\n  "stage": oops\n}', /not valid JSON at line 3/);
});

test('a node without class_type is refused, naming the node', () => {
  const t = JSON.parse(keyframe);
  delete t.workflow['8'].class_type;
  rejects(JSON.stringify(t), /node "8" has no class_type/);
});

test('applying parameters sets only the named inputs and leaves the template untouched', () => {
  const def = parseTemplateFile(keyframe, 'k.json');
  const out = applyParameters(def.workflow, def.parameters, { seed: 7, prompt: 'moon' });
  assert.equal(out['3']?.inputs.seed, 7);
  assert.equal(out['6']?.inputs.text, 'moon');
  assert.equal(def.workflow['3']?.inputs.seed, 0, 'the template itself is not modified');
  assert.deepEqual(out['3']?.inputs.model, ['4', 0]);
});

test('applying an unknown parameter names it and lists the known ones', () => {
  const def = parseTemplateFile(keyframe, 'k.json');
  assert.throws(
    () => applyParameters(def.workflow, def.parameters, { sampler: 'euler' }),
    /"sampler" is not defined by the template \(known: prompt, negative, seed/,
  );
});
