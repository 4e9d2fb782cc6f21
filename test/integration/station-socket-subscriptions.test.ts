/**
 * One socket per workstation serves every attempt on it (comfy/station-socket.ts): a prompt's
 * subscription gets that prompt's frames and the broadcasts, and a closed one leaves nothing
 * behind — a farm that ran thousands of prompts on a workstation walks only the open ones at each
 * `status` broadcast (they once stayed as empty entries: every broadcast cost more as the day went on).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { StationSocket } from '../../electron/engine/comfy/station-socket.js';
import { startSimInstance } from '../simulator/index.js';

test('closed subscriptions leave no entry behind; a prompt stays followed while one subscription is open', async (t) => {
  const sim = await startSimInstance({ name: 'sub-test' });
  t.after(() => sim.close());
  const socket = new StationSocket({ baseUrl: sim.url, newClientId: () => randomUUID() });
  t.after(() => socket.close());
  await socket.ready();
  for (let i = 0; i < 200; i++) socket.subscribe(randomUUID()).close();
  assert.equal(socket.followed, 0, 'every closed subscription is gone');

  const open = socket.subscribe(randomUUID());
  const twice = socket.subscribe(open.promptId); // a recovered attempt beside its runner: same prompt
  assert.equal(socket.followed, 1, 'one entry per prompt followed');
  twice.close();
  assert.equal(socket.followed, 1, 'the prompt is still followed by the other');
  open.close();
  assert.equal(socket.followed, 0);
});
