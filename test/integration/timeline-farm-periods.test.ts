/**
 * timeline.get answers the farm's paused and stopped stretches of its window, from the history every
 * pause, stop and resume writes (farm_state_changes, beside the state's own row); a farm whose state
 * was set before that history existed answers its current state since it was set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor } from '../helpers/engine.js';
import { writeSetting } from '../../electron/engine/store/settings-store.js';

test('a pause, a stop and a resume are answered as the stretches they make, with who', async (ctx) => {
  const { engine, clock } = await engineFor(ctx, { templates: false });
  const t0 = clock.now();
  clock.advance(60_000);
  await engine.call('farm.pause', { by: 'ana' });
  clock.advance(120_000);
  await engine.call('farm.stop', { by: 'bo' });
  clock.advance(30_000);
  await engine.call('farm.resume', { by: 'ana' });
  clock.advance(60_000);
  const t = await engine.call('timeline.get', { from: t0, to: clock.now() });
  assert.deepEqual(t.farmPeriods, [
    { state: 'paused', from: t0 + 60_000, to: t0 + 180_000, by: 'ana' },
    { state: 'stopped', from: t0 + 180_000, to: t0 + 210_000, by: 'bo' },
  ]);
  // A window inside the pause still sees it (the change before the window).
  const inside = await engine.call('timeline.get', { from: t0 + 90_000, to: t0 + 100_000 });
  assert.deepEqual(inside.farmPeriods, [{ state: 'paused', from: t0 + 60_000, to: t0 + 180_000, by: 'ana' }]);
});

test('a pause recorded before the history existed is answered from the farm state, open', async (ctx) => {
  const { engine, clock } = await engineFor(ctx, { templates: false });
  const at = clock.now();
  // What an older version wrote: the state's row alone, no history row.
  writeSetting(engine.db, 'farm.state', { state: 'paused', by: 'cli', at }, at);
  clock.advance(10_000);
  const t = await engine.call('timeline.get', { from: at - 5_000, to: clock.now() });
  assert.deepEqual(t.farmPeriods, [{ state: 'paused', from: at, to: null, by: 'cli' }]);
});
