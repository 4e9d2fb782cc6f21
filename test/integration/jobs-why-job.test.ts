/**
 * `jobs.why` for a job that is not queued: a pending job names the dependency it waits for and its
 * state; a retry says when its backoff ends. Answered with or without a farm in the process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startFarm } from '../helpers/farm.js';
import { forEachStore, storeArgs } from '../helpers/test-store.js';

forEachStore((store) => {
  test(`a pending job says which dependency it waits for, and that it is not done on ${store}`, async () => {
    const farm = await startFarm({ store, instances: [], start: false });
    try {
      const list = {
        project: 'P',
        episode: 'E',
        shots: [
          {
            id: 'sh1',
            stages: [
              { stage: 'keyframe', template: 'txt2img' },
              { stage: 'motion', template: 'video18', depends_on: 'keyframe' },
            ],
          },
        ],
      };
      const preview = await farm.engine.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
      await farm.engine.call('import.commit', { previewId: preview.previewId });
      const [keyframe, motion] = preview.rows.map((r) => r.jobId as string);
      const w = await farm.engine.call('jobs.why', { id: motion! });
      assert.equal(w.state, 'pending');
      assert.deepEqual(w.dependency, { id: keyframe, stage: 'keyframe', take: 1, state: 'queued' });
      assert.match(w.summary, /^waits for its keyframe take 1, which is queued: no workstation is registered$/);
      assert.equal(w.lasting, 'operator');
      assert.equal(w.source, 'store', 'no farm runs in this process');
      const cli = await runCli(farm.dir, ...storeArgs(farm.store), 'jobs', 'why', motion!.slice(0, 8));
      assert.match(cli.out, new RegExp(`depends on ${keyframe!.slice(0, 8)} \\(keyframe take 1\\): queued`));
      await farm.engine.call('jobs.hold', { ids: [keyframe!] });
      assert.match((await farm.engine.call('jobs.why', { id: motion! })).summary, /which is held \(release it\)$/);
      assert.match((await farm.engine.call('jobs.why', { id: keyframe! })).summary, /^held by an operator/);
    } finally {
      await farm.close();
    }
  });

  test(`a job waiting out a retry backoff says until when on ${store}`, async () => {
    // A backoff of up to an hour: long enough that the job is still waiting when asked.
    const farm = await startFarm({
      store,
      instances: [{ script: ['500'] }],
      config: { retry: { maxAttempts: 4, baseMs: 3_600_000, capMs: 3_600_000 } },
    });
    try {
      const [id] = await farm.importJobs([{ id: 'flaky' }]);
      const [v] = await farm.waitForStates([id!], ['failed_retryable']);
      const w = await farm.engine.call('jobs.why', { id: id! });
      assert.equal(w.state, 'failed_retryable');
      const row = farm.engine.db.one('SELECT not_before FROM jobs WHERE id = ?', id) as { not_before: number };
      assert.equal(w.retryAt, row.not_before);
      assert.match(w.summary, /^retries at \d\d:\d\d:\d\d \(attempt 2 of 4\) after: /);
      assert.equal(w.lasting, 'now');
      assert.match(v?.waitReason ?? '', /^retries at \d\d:\d\d:\d\d$/, 'the queue row says it too');
    } finally {
      await farm.close();
    }
  });
});
