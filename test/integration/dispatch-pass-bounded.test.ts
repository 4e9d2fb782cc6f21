/**
 * More places free at once than one pass fills (a farm's start: every GPU, and the place behind
 * each): a pass places at most PLACES_PER_PASS jobs and the next pass, a turn later, goes on — so
 * no single turn places hundreds — and every job is still dispatched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLACES_PER_PASS } from '../../electron/engine/scheduler/dispatch-choice.js';
import { farmFor, startPaused, type ShotSpec } from '../helpers/farm.js';

test('a pass places at most PLACES_PER_PASS jobs; the passes after it place the rest', async (ctx) => {
  // Three workstations of 16 slots (the most one takes): more free slots than jobs, more jobs than one pass places.
  const jobs = PLACES_PER_PASS + 8;
  const farm = await farmFor(ctx, {
    instances: Array.from({ length: 3 }, () => ({ concurrency: 16, vramTotalGb: 400 })),
    start: false,
  });
  const shots: ShotSpec[] = Array.from({ length: jobs }, (_, i) => ({ id: `s${i}` }));
  const ids = await farm.importJobs(shots);
  // Every workstation up before the farm dispatches: all their slots are free in one pass.
  const scheduler = await startPaused(farm, { up: true });
  // What the passes placed so far: the workstations' cards list every job given a slot there, committed or not.
  const placedAfter: number[] = [];
  const pass = scheduler.dispatchPass.bind(scheduler);
  scheduler.dispatchPass = () => {
    pass();
    placedAfter.push(scheduler.instanceViews().reduce((n, v) => n + v.currentJobIds.length, 0));
  };
  await farm.engine.call('farm.resume', {});
  await farm.waitForStates(ids, ['completed']);
  const first = placedAfter.findIndex((n) => n > 0);
  assert.ok(first >= 0, 'a pass placed jobs');
  assert.equal(
    placedAfter[first],
    PLACES_PER_PASS,
    `placed after each pass: ${placedAfter.slice(0, first + 3).join(', ')}`,
  );
  assert.equal(placedAfter[first + 1], jobs, 'the next pass placed the rest');
});
