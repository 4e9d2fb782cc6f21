/**
 * A job put back in the queue (a stop interrupts it) is on no workstation: its row, its view and the
 * queue's workstation filter stop naming the one its attempt ran on; the attempt keeps that name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFarm } from '../helpers/farm.js';

test('a job requeued by a stop names no workstation, in its view and in the workstation filter; its attempt still does', async () => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 60_000 } }] });
  try {
    const [id] = await farm.importJobs([{ id: 'sh010' }]);
    const [running] = await farm.waitForStates([id!], ['running']);
    const ws = running!.instanceId;
    assert.ok(ws, 'a running job names its workstation');
    assert.equal((await farm.engine.call('jobs.list', { filter: { instanceId: ws } })).total, 1);

    await farm.engine.call('farm.stop', {});
    const [queued] = await farm.waitForStates([id!], ['queued']);
    assert.equal(queued?.instanceId, null, 'waiting on no workstation');
    assert.equal((await farm.engine.call('jobs.get', { id: id! })).instanceId, null);
    assert.equal(
      (await farm.engine.call('jobs.list', { filter: { instanceId: ws } })).total,
      0,
      'the filter agrees with the view',
    );
    const attempts = await farm.engine.call('jobs.attempts', { id: id! });
    assert.equal(attempts[0]?.instanceName, 'sim-0', 'the attempt keeps where it ran');
  } finally {
    await farm.close();
  }
});
