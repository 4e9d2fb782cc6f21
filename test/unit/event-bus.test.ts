/** The engine's event bus: who counts as an audience (work done only to be shown is skipped without one). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../electron/engine/event-bus.js';

test("the engine's own followers are no audience: only other listeners make one, and leaving ends it", () => {
  const bus = new EventBus();
  const heard: string[] = [];
  const offFollower = bus.on('jobs.bulkChanged', () => heard.push('follower'), { internal: true });
  assert.equal(bus.audience('jobs.bulkChanged'), false, 'a follower alone is no audience');
  const offClient = bus.on('jobs.bulkChanged', () => heard.push('client'));
  assert.equal(bus.audience('jobs.bulkChanged'), true);
  assert.equal(bus.audience('job.changed'), false, 'per topic');
  bus.emit('jobs.bulkChanged', { count: 1 });
  assert.deepEqual(heard, ['follower', 'client'], 'both hear every event');
  offClient();
  offClient(); // a second unsubscribe changes nothing
  assert.equal(bus.audience('jobs.bulkChanged'), false);
  offFollower();
  bus.emit('jobs.bulkChanged', { count: 2 });
  assert.deepEqual(heard, ['follower', 'client'], 'nobody hears after leaving');
});
