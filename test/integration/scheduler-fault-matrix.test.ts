/**
 * Every behaviour word and instance fault of the simulator ends in the right state and error
 * class with a reason an operator can read (one attempt allowed, so the first outcome is final).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobState } from '../../shared/job-states.js';
import { executedCount, startFarm } from '../helpers/farm.js';

interface Row {
  word: string;
  state: JobState;
  errorClass: string | null;
  reason: RegExp;
  /** An instance fault applied while the prompt runs, instead of a script word. */
  fault?: 'partition';
  executed: number;
}

const rows: Row[] = [
  { word: 'ok', state: 'completed', errorClass: null, reason: /output\(s\) stored/, executed: 1 },
  { word: 'slow', state: 'completed', errorClass: null, reason: /output\(s\) stored/, executed: 1 },
  { word: 'drop', state: 'completed', errorClass: null, reason: /output\(s\) stored/, executed: 1 },
  { word: 'busy 2', state: 'completed', errorClass: null, reason: /output\(s\) stored/, executed: 1 },
  {
    word: '500',
    state: 'failed_final',
    errorClass: 'transient',
    reason: /gave up after 1 attempt: sim-0 answered POST \/prompt with HTTP 500/,
    executed: 0,
  },
  {
    word: 'invalid',
    state: 'failed_final',
    errorClass: 'permanent',
    reason: /ComfyUI rejected the workflow: .*Value not in list/,
    executed: 0,
  },
  {
    word: 'error',
    state: 'failed_final',
    errorClass: 'permanent',
    reason: /\(node \d+\) failed: RuntimeError: /,
    executed: 0,
  },
  {
    word: 'oom',
    state: 'failed_final',
    errorClass: 'oom',
    reason: /gave up after 1 attempt: out of GPU memory in KSampler \(node 3\) on sim-0/,
    executed: 0,
  },
  {
    word: 'hang',
    state: 'timeout_kill',
    errorClass: 'timeout',
    reason: /no progress for 1 s \(stall timeout\); no attempts left/,
    executed: 0,
  },
  {
    word: 'crash',
    state: 'failed_final',
    errorClass: 'transient',
    reason: /gave up after 1 attempt: (lost contact with sim-0|sim-0 did not answer|the prompt disappeared from sim-0)/,
    executed: 0,
  },
  {
    word: 'restart',
    state: 'failed_final',
    errorClass: 'transient',
    reason: /gave up after 1 attempt: the prompt disappeared from sim-0 \(the server restarted\?\)/,
    executed: 0,
  },
  {
    word: 'ok',
    fault: 'partition',
    state: 'failed_final',
    errorClass: 'transient',
    reason: /gave up after 1 attempt: lost contact with sim-0/,
    executed: 1,
  },
];

for (const row of rows) {
  test(`${row.fault ?? row.word} → ${row.state}${row.errorClass ? ` (${row.errorClass})` : ''}`, async () => {
    const farm = await startFarm({
      instances: [{ script: [row.word], duration: { fixedMs: row.fault ? 3000 : 30 } }],
      config: { stallTimeoutS: 1, graceMs: 1500, retry: { maxAttempts: 1, baseMs: 10, capMs: 10 } },
    });
    try {
      const [id] = await farm.importJobs([{ id: 'shot' }]);
      if (row.fault === 'partition') {
        await farm.waitFor('the prompt to run', () => farm.sims[0]!.counts(id!).received === 1);
        farm.sims[0]!.partition(true);
      }
      const [v] = await farm.waitForStates([id!], ['completed', 'failed_final', 'timeout_kill'], 30_000);
      assert.equal(v?.state, row.state, v?.stateReason ?? '');
      assert.equal(v?.errorClass, row.errorClass);
      assert.match(v?.stateReason ?? '', row.reason);
      if (row.fault === 'partition') {
        // The server kept running while unreachable: the prompt finished there, but nothing was collected from it.
        farm.sims[0]!.partition(false);
        assert.equal((farm.engine.db.one('SELECT COUNT(*) AS n FROM assets') as { n: number }).n, 0);
      } else {
        assert.equal(executedCount(farm, id!), row.executed);
      }
    } finally {
      await farm.close();
    }
  });
}
