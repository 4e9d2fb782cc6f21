import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { transitionJob } from '../../electron/engine/job-state.js';
import { engineFor, importText, RESOURCES, type TestEngine } from '../helpers/engine.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

/** A queued job failed for good, as an attempt's end would leave it (through the one door). */
function failForGood(t: TestEngine, id: string, reason: string): void {
  transitionJob(t.engine.db, t.clock, {
    jobId: id,
    to: 'running',
    reason: 'attempt 1',
    actor: 'test',
    expectFrom: ['queued'],
  });
  transitionJob(t.engine.db, t.clock, {
    jobId: id,
    to: 'failed_final',
    reason,
    actor: 'test',
    patch: { error_class: 'node_error' },
  });
}

test('Failures: a take superseded by a newer take is marked, sinks below the open ones, and leaves the badge count', async (ctx) => {
  const t = await engineFor(ctx);
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const [a, , c] = result.jobIds as [string, string, string];
  failForGood(t, a, 'KSampler (node 3) failed: RuntimeError');
  failForGood(t, c, 'KSampler (node 3) failed: RuntimeError');
  assert.equal((await t.engine.call('farm.status', {})).openFailures, 2);

  const [take2] = await t.engine.call('jobs.newTake', { ids: [a] });
  const [group] = await t.engine.call('failures.list', {});
  assert.equal(group!.count, 2);
  assert.equal(group!.superseded, 1);
  assert.deepEqual(
    group!.jobs.map((j) => [j.id, j.supersededByTake]),
    [
      [c, null],
      [a, take2!.take],
    ],
    'the open failure first',
  );
  const jobA = group!.jobs[1]!;
  assert.deepEqual(
    [jobA.project, jobA.episode],
    ['Moonfall', 'ep101'],
    'project and episode travel with each failed job',
  );
  assert.equal((await t.engine.call('farm.status', {})).openFailures, 1, 'a new take handles the failure');

  await t.engine.call('jobs.cancel', { ids: [c] });
  assert.equal((await t.engine.call('farm.status', {})).openFailures, 0, 'so does cancelling it');
  await t.engine.call('jobs.retry', { ids: [c] });
  assert.equal((await t.engine.call('farm.status', {})).openFailures, 0, 'and a retry');
});
