/**
 * Workstations built alike send the same /object_info: the engine parses a list once per content,
 * and the workstations that sent it share it (object-info-cache.ts), while one with other models
 * keeps a list — and a capability answer — of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farmFor } from '../helpers/farm.js';

test('a node list identical to one already read is not parsed again; a different one is, and still decides where a job can run', async (ctx) => {
  const alike = 5;
  const farm = await farmFor(ctx, {
    instances: [
      ...Array.from({ length: alike }, () => ({ models: { checkpoints: ['other.safetensors'] } })),
      { models: { checkpoints: ['hero.safetensors'] } },
    ],
  });
  const scheduler = farm.engine.scheduler;
  assert.ok(scheduler);
  await farm.waitFor('every node list', () => scheduler.readiness().every((r) => r.nodeListKnown));
  assert.deepEqual({ ...scheduler.nodeListReads }, { read: alike + 1, parsed: 2 });
  // Only the odd one out has the checkpoint: the shared list must not have answered for it.
  const [hero, other] = (await farm.importJobs([
    { id: 'hero', parameters: { ckpt: 'hero.safetensors' } },
    { id: 'other', parameters: { ckpt: 'other.safetensors' } },
  ])) as [string, string];
  await farm.waitForStates([hero, other], ['completed']);
  const ran = (id: string) => farm.sims.findIndex((s) => s.counts(id).executed === 1);
  assert.equal(ran(hero), alike);
  assert.ok(ran(other) >= 0 && ran(other) < alike, `other ran on sim-${ran(other)}`);
  for (const [i, s] of farm.sims.entries()) if (i !== alike) assert.equal(s.counts(hero).received, 0);
});
