import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkWorkflowAgainstObjectInfo } from '../../electron/engine/comfy/capabilities.js';
import { ObjectInfoSchema } from '../../electron/engine/comfy/schemas.js';
import { compactNodeList, expandNodeList } from '../../electron/engine/pools/comfy-lan/node-lists.js';
import { DEFAULT_MODELS } from '../simulator/options.js';
import { buildCatalog, DEFAULT_NODE_CLASSES } from '../simulator/node-catalog.js';

// The simulator's /object_info, in the shape ComfyUI 0.3.64 answers (both combo encodings among them).
const full = ObjectInfoSchema.parse(
  Object.fromEntries(
    [...buildCatalog(DEFAULT_NODE_CLASSES, DEFAULT_MODELS, () => ['plate.png'])].map(([name, c]) => [name, c.info]),
  ),
);
const workflow = (
  JSON.parse(readFileSync(new URL('../../resources/templates/keyframe-img2img.json', import.meta.url), 'utf8')) as {
    workflow: Record<string, unknown>;
  }
).workflow;

test('a stored node list answers the capability check exactly as the full /object_info does', () => {
  const stored = expandNodeList(compactNodeList(full));
  assert.deepEqual(checkWorkflowAgainstObjectInfo(workflow, stored), checkWorkflowAgainstObjectInfo(workflow, full));
  const withOtherModel = JSON.parse(
    JSON.stringify(workflow).replace('sd_xl_base_1.0.safetensors', 'hero.safetensors'),
  ) as Record<string, unknown>;
  const missing = checkWorkflowAgainstObjectInfo(withOtherModel, stored);
  assert.deepEqual(missing, checkWorkflowAgainstObjectInfo(withOtherModel, full));
  assert.equal(missing.length, 1, 'the missing checkpoint is found in the stored list too');
  const { KSampler: _dropped, ...fewer } = compactNodeList(full);
  assert.equal(
    checkWorkflowAgainstObjectInfo(workflow, expandNodeList(fewer)).filter((p) => p.kind === 'missing_node').length,
    1,
  );
});

test('the stored form keeps only node classes and combo values: a fraction of /object_info', () => {
  const compact = JSON.stringify(compactNodeList(full));
  assert.ok(
    compact.length < JSON.stringify(full).length / 2,
    `${compact.length} of ${JSON.stringify(full).length} bytes`,
  );
  assert.deepEqual(compactNodeList(full).CheckpointLoaderSimple, { ckpt_name: DEFAULT_MODELS.checkpoints });
});
