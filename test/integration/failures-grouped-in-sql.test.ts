/**
 * failures.list counts and picks each stored reason in SQL (a studio's 12k failures are not read
 * into the engine). Its answer is the one the engine gave when it read every failed row and grouped
 * them itself — the reference below is that code, kept here — on SQLite and on PostgreSQL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FailureGroup } from '../../shared/domain.js';
import type { JobState } from '../../shared/job-states.js';
import { failureKey } from '../../electron/engine/queries/attempts.js';
import { transitionJob } from '../../electron/engine/job-state.js';
import { toJobView } from '../../electron/engine/store/job-rows.js';
import type { JobRow } from '../../electron/engine/store/job-rows.js';
import type { Engine } from '../../electron/engine/engine.js';
import { startFarm } from '../helpers/farm.js';
import { STORE_KINDS } from '../helpers/test-store.js';

type FailedRow = JobRow & { newer_take: number | null };

/** The grouping as the engine did it before: every failed row read, grouped and cut in JS. */
function referenceGroups(engine: Engine, limitPerGroup: number): FailureGroup[] {
  const names = engine.db.all<{ name: string }>('SELECT name FROM instances ORDER BY name').map((r) => r.name);
  const rows = engine.db.all<FailedRow>(
    `SELECT * FROM (SELECT j.*, (SELECT MAX(n.take) FROM jobs n WHERE n.project = j.project AND n.episode = j.episode
      AND n.shot = j.shot AND n.stage = j.stage AND n.take > j.take) AS newer_take FROM jobs j
    WHERE j.state IN ('failed_final', 'timeout_kill', 'failed_retryable')) f ORDER BY f.newer_take IS NOT NULL, f.updated_at DESC`,
  );
  const groups = new Map<string, FailureGroup>();
  for (const r of rows) {
    const reason = r.state_reason ?? 'no reason recorded';
    const key = `${r.error_class ?? ''}\u001f${failureKey(reason, names)}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, reason: failureKey(reason, names), errorClass: r.error_class, count: 0, superseded: 0, jobs: [] };
      groups.set(key, g);
    }
    g.count++;
    if (r.newer_take !== null) g.superseded++;
    if (g.jobs.length < limitPerGroup) g.jobs.push({ ...toJobView(r), supersededByTake: r.newer_take });
  }
  return [...groups.values()].sort((a, b) => b.count - b.superseded - (a.count - a.superseded) || b.count - a.count);
}

for (const store of STORE_KINDS) {
  test(`Failures (${store}): groups, counts, superseded takes and the first jobs of each group are the same as grouping every failed row`, async (ctx) => {
    const farm = await startFarm({ instances: [], start: false, store });
    ctx.after(() => farm.close());
    const { engine } = farm;
    // Workstations whose names the grouping takes out of a reason (never probed: no scheduler runs).
    for (const name of ['gpu-01', 'gpu-02', 'lighting-dept-floor3-rtx6000'])
      await engine.call('instances.add', { name, url: `http://127.0.0.1:9/${name}` });
    const ids = await farm.importJobs(
      Array.from({ length: 36 }, (_, i) => ({
        id: `sq0010_sh${String(i % 12).padStart(3, '0')}`,
        stage: ['a', 'b', 'c'][Math.floor(i / 12)],
      })),
    );
    // Every change a millisecond apart, so "most recent change first" orders them all.
    let now = Date.now();
    const clock = { now: () => ++now };
    const fail = (id: string, to: JobState, reason: string, errorClass: string | null) => {
      transitionJob(engine.db, clock, {
        jobId: id,
        to: 'running',
        reason: 'attempt 1',
        actor: 'test',
        expectFrom: ['queued'],
      });
      transitionJob(engine.db, clock, { jobId: id, to, reason, actor: 'test', patch: { error_class: errorClass } });
    };
    const reasons: [JobState, string, string | null][] = [
      ['failed_final', 'gave up after 3 attempts: KSampler (node 3) failed on gpu-01: RuntimeError', 'node_error'],
      ['failed_final', 'gave up after 4 attempts: KSampler (node 3) failed on gpu-02: RuntimeError', 'node_error'],
      ['failed_final', 'KSampler (node 3) failed on lighting-dept-floor3-rtx6000: RuntimeError', 'node_error'],
      ['failed_final', 'out of GPU memory on gpu-01', 'oom'],
      ['failed_final', 'out of GPU memory on gpu-01', 'node_error'],
      ['timeout_kill', 'ran past its time limit of 600 s on gpu-02', 'timeout'],
      ['failed_retryable', 'lost contact with gpu-01; retry 1 of 3 after a short wait', 'lost_contact'],
      ['failed_final', 'the checkpoint sdxl.safetensors is missing', null],
    ];
    ids.slice(0, 32).forEach((id, i) => {
      const [to, reason, errorClass] = reasons[(i * 5) % reasons.length] as [JobState, string, string | null];
      fail(id, to, reason, errorClass);
    });
    // New takes of some failed jobs: those failures are superseded (and sink below the open ones).
    const failedFinal = (await engine.call('jobs.list', { filter: { states: ['failed_final'] } })).rows;
    await engine.call('jobs.newTake', { ids: failedFinal.filter((_, i) => i % 3 === 0).map((j) => j.id) });

    for (const limitPerGroup of [1, 2, 500]) {
      const got = await engine.call('failures.list', { limitPerGroup });
      assert.deepEqual(got, referenceGroups(engine, limitPerGroup), `limitPerGroup ${limitPerGroup}`);
    }
    const groups = await engine.call('failures.list', {});
    assert.ok(
      groups.some((g) => g.superseded > 0 && g.superseded < g.count),
      'a group holds open and superseded failures',
    );
    assert.ok(
      groups.some((g) => g.reason === 'KSampler (node 3) failed: RuntimeError' && g.count >= 3),
      'reasons that differ by workstation and attempt count are one group',
    );
  });
}
