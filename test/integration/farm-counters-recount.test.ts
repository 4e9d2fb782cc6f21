/**
 * The running farm's jobs-by-state counters (scheduler/farm-counters.ts) count the jobs again when
 * they are more than a page of changes behind (a studio-sized import landed since the last look),
 * and move by the event rows again after: the counts stay those of the store, on both stores.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../../electron/engine/engine.js';
import { startFarm } from '../helpers/farm.js';
import { STORE_KINDS } from '../helpers/test-store.js';

/** Jobs by state as the store holds them, the states with none left out. */
function stored(engine: Engine): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of engine.db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state'))
    out[r.state] = r.n;
  return out;
}

async function shown(engine: Engine): Promise<Record<string, number>> {
  const { jobsByState } = await engine.call('farm.status', {});
  return Object.fromEntries(Object.entries(jobsByState).filter(([, n]) => n > 0));
}

for (const store of STORE_KINDS) {
  test(`Farm counters (${store}): 5,100 jobs imported between two looks are counted, and later changes still move the counts`, async (ctx) => {
    const farm = await startFarm({ instances: [], store });
    ctx.after(() => farm.close());
    const { engine } = farm;
    const first = await farm.importJobs([{ id: 'sh0001' }, { id: 'sh0002' }]);
    assert.deepEqual(await shown(engine), { queued: 2 }, 'the counters exist before the import');

    const many = await farm.importJobs(
      Array.from({ length: 5_100 }, (_, i) => ({ id: `big${String(i).padStart(5, '0')}` })),
    );
    assert.equal(many.length, 5_100);
    await engine.call('jobs.hold', { ids: many.slice(0, 7) });
    assert.deepEqual(await shown(engine), stored(engine), 'more than a page behind: the same counts as the store');
    assert.equal((await shown(engine)).queued, 5_095);

    await engine.call('jobs.cancel', { ids: [...first, ...many.slice(7, 10)] });
    assert.deepEqual(await shown(engine), stored(engine), 'a few changes later: moved by their event rows');
    assert.equal((await shown(engine)).cancelled, 5);
  });
}
