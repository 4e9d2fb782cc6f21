/**
 * While an attempt runs, the API shows what it is doing — posted (queued on the server), running,
 * with ComfyUI's prompt number — though the store keeps it `claimed` until its end (one commit per
 * attempt end).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptPhase } from '../../shared/domain.js';
import { startFarm, type Farm } from '../helpers/farm.js';

async function phaseOf(farm: Farm, id: string): Promise<AttemptPhase | null> {
  return (await farm.job(id)).attempt?.phase ?? null;
}

test('the job view and its attempts show the live phase and prompt number while the store says claimed', async () => {
  // `busy 1`: a foreign prompt runs first, so ours waits on the server (posted) before it runs.
  const farm = await startFarm({ instances: [{ script: ['busy 1'], duration: { fixedMs: 1_500 } }] });
  try {
    const [id] = await farm.importJobs([{ id: 'live' }]);
    const seen = new Set<AttemptPhase>();
    farm.engine.events.on(
      'job.changed',
      ({ job }) => void (job.id === id && job.attempt && seen.add(job.attempt.phase)),
    );
    await farm.waitFor('posted', async () => (await phaseOf(farm, id!)) === 'posted');
    const posted = await farm.job(id!);
    assert.equal(typeof posted.attempt?.promptNumber, 'number');
    const stored = farm.engine.db.one('SELECT state FROM attempts WHERE id = ?', posted.attempt?.id) as {
      state: string;
    };
    assert.equal(stored.state, 'claimed', 'no commit per step');
    await farm.waitFor('running', async () => (await phaseOf(farm, id!)) === 'running');
    const [att] = await farm.engine.call('jobs.attempts', { id: id! });
    assert.equal(att?.state, 'running');
    assert.equal(att?.promptNumber, posted.attempt?.promptNumber);
    const [done] = await farm.waitForStates([id!], ['completed'], 20_000);
    assert.equal(done?.attempt, null);
    const [ended] = await farm.engine.call('jobs.attempts', { id: id! });
    assert.equal(ended?.state, 'ended');
    assert.equal(ended?.promptNumber, posted.attempt?.promptNumber, 'the number is stored with the end');
    assert.deepEqual(
      [...seen].filter((p) => p !== 'claimed'),
      ['posted', 'running', 'collecting'],
      'each phase went out as job.changed',
    );
  } finally {
    await farm.close();
  }
});
