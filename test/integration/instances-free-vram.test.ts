/**
 * Issue 25 build 7: "Free VRAM" asks an idle workstation's ComfyUI to unload its models (POST /free)
 * and the card's VRAM figure shows what was freed; refused while the farm renders there (it would
 * unload the running prompt's model) and for a RunPod endpoint (no ComfyUI server of ours).
 * Real SQLite, simulator over loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShotfarmError } from '../../shared/errors.js';
import { farmFor } from '../helpers/farm.js';

test('Free VRAM is refused while the workstation renders and frees the loaded model once it is idle, the card showing it', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ duration: { fixedMs: 2_500 } }] });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitForStates([id!], ['running']);

  await assert.rejects(farm.engine.call('instances.freeVram', { id: 'sim-0' }), (err: unknown) => {
    assert.ok(err instanceof ShotfarmError);
    assert.equal(err.code, 'conflict');
    assert.match(
      err.message,
      /"sim-0" is rendering 1 job\(s\): freeing VRAM now would unload the models its prompt uses/,
    );
    return true;
  });
  assert.equal(farm.sims[0]!.freeRequests(), 0, 'nothing was sent to the server while it rendered');

  await farm.waitForStates([id!], ['completed'], 30_000);
  // The model stays loaded after a success: the farm's probes see it on the card.
  await farm.waitFor('the loaded model on the card', async () => {
    const card = (await farm.engine.call('instances.list', {})).find((i) => i.name === 'sim-0');
    return (card?.vram?.comfyBytes ?? 0) > 1024 ** 3;
  });

  const seen: number[] = [];
  farm.engine.events.on('instance.changed', ({ instance }) => {
    if (instance.name === 'sim-0' && instance.vram) seen.push(instance.vram.comfyBytes);
  });
  const after = await farm.engine.call('instances.freeVram', { id: 'sim-0' });
  assert.equal(farm.sims[0]!.freeRequests(), 1);
  assert.ok(after.vram, 'the card has VRAM figures after');
  assert.ok(after.vram.comfyBytes < 1024 ** 3, `the models' share dropped (now ${after.vram.comfyBytes} bytes)`);
  assert.ok(
    seen.some((b) => b < 1024 ** 3),
    'the card went out with the freed figure',
  );
  const listed = (await farm.engine.call('instances.list', {})).find((i) => i.name === 'sim-0');
  assert.ok((listed?.vram?.comfyBytes ?? Infinity) < 1024 ** 3, 'the stored card keeps the freed figure');
});

test('Free VRAM on a RunPod endpoint is refused in words that say why, nothing stored changed', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [], start: false });
  const ep = await farm.engine.call('cloud.addRunpod', { name: 'cloud-1', endpointId: 'abc123', pricePerHourUsd: 2 });
  const before = await farm.engine.call('instances.list', {});
  await assert.rejects(farm.engine.call('instances.freeVram', { id: ep.id }), (err: unknown) => {
    assert.ok(err instanceof ShotfarmError);
    assert.equal(err.code, 'bad_input');
    assert.match(err.message, /"cloud-1" is a RunPod endpoint/);
    return true;
  });
  assert.deepEqual(await farm.engine.call('instances.list', {}), before);
});
