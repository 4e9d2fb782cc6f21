/**
 * The WorkerPool conformance suite (issue 24): the same lifecycle cases run against every kind of
 * workstation — the LAN ComfyUI pool on the ComfyUI simulator, the RunPod pool on the RunPod
 * simulator, both over loopback — so the engine's rules hold for each: a claim before anything is
 * sent, a success with its outputs in the ledger, each failure class ending in its state, an
 * operator's cancel and "stop farm" taking the work off the server, an engine restart (closed, or
 * killed with SIGKILL) taking up the open attempt without rendering it again, and a full output disk holding the farm instead of
 * failing the attempt, and a full database holding it before any claim. A new kind of workstation is one more entry in POOLS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import type { OutputFs } from '../../electron/engine/files/output-file.js';
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import type { JobState } from '../../shared/job-states.js';
import { cloudFarmFor } from '../helpers/cloud-farm.js';
import { farmFor, receivedCount, type Farm } from '../helpers/farm.js';
import { fillingDisk } from '../helpers/filling-disk.js';
import { Engine } from '../../electron/engine/engine.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { FAST, FIXTURE_TEMPLATES, waitOnEngine } from '../helpers/farm.js';
import { runAndKill, storedAttempt } from '../helpers/kill-child.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { startSimInstance } from '../simulator/instance.js';
import { startRunpodSim } from '../simulator/runpod/server.js';

/** What a case asks of a pool's farm: its one workstation's behaviour. */
interface Setup {
  /** The failure to script on the server for the first render, or none. */
  fail?: FailureClass;
  /** How long a render takes on the server, ms. */
  renderMs?: number;
  outputFs?: OutputFs;
  config?: Partial<SchedulerConfig>;
  /** Leave the scheduler stopped (the test starts it with farm.startScheduler). */
  start?: false;
}

type FailureClass = 'transient' | 'permanent' | 'timeout';

/** A farm with one workstation of the pool's kind and nothing else. */
interface UnderTest {
  farm: Farm;
  /** The workstation's name, as attempts and the ledger record it. */
  instanceName: string;
  /** Renders of these jobs sent to the server (prompts posted, /run calls). */
  sent(...jobIds: string[]): number;
  /** Nothing of ours is queued or running on the server. */
  serverIdle(): Promise<boolean>;
}

interface Pool {
  kind: 'comfyui' | 'runpod';
  open(t: TestContext, s: Setup): Promise<UnderTest>;
}

/** One retry at most and a 1 s stall: every failure ends the job at once, in its class. */
const FINAL = { retry: { maxAttempts: 1, baseMs: 10, capMs: 10 }, stallTimeoutS: 1, graceMs: 1500 };

const POOLS: readonly Pool[] = [
  {
    kind: 'comfyui',
    async open(t, s) {
      const words: Record<FailureClass, string> = { transient: '500', permanent: 'invalid', timeout: 'hang' };
      const farm = await farmFor(t, {
        instances: [{ script: s.fail ? [words[s.fail]] : [], duration: { fixedMs: s.renderMs ?? 30 } }],
        config: { ...FINAL, prefetch: false, ...s.config },
        ...(s.outputFs ? { outputFs: s.outputFs } : {}),
        ...(s.start === false ? { start: false } : {}),
      });
      const sim = farm.sims[0]!;
      return {
        farm,
        instanceName: 'sim-0',
        sent: (...jobIds) => jobIds.reduce((n, id) => n + receivedCount(farm, id), 0),
        async serverIdle() {
          const q = (await (await fetch(`${sim.url}/queue`)).json()) as {
            queue_running: unknown[];
            queue_pending: unknown[];
          };
          return q.queue_running.length === 0 && q.queue_pending.length === 0;
        },
      };
    },
  },
  {
    kind: 'runpod',
    async open(t, s) {
      const words: Record<FailureClass, 'lost' | 'invalid' | 'timeout'> = {
        transient: 'lost',
        permanent: 'invalid',
        timeout: 'timeout',
      };
      const { farm, sim, endpointName } = await cloudFarmFor(t, {
        sim: {
          coldStartMs: 0,
          script: s.fail ? [words[s.fail]] : [],
          comfy: { duration: { fixedMs: s.renderMs ?? 30 } },
          // RunPod's execution timeout ends a `timeout` run (TIMED_OUT); the other cases render well inside the default.
          ...(s.fail === 'timeout' ? { executionTimeoutMs: 500 } : {}),
        },
        farm: { config: { ...FINAL, runpodPollMs: 40, ...s.config }, ...(s.outputFs ? { outputFs: s.outputFs } : {}) },
        ...(s.start === false ? { start: false } : {}),
      });
      return {
        farm,
        instanceName: endpointName,
        sent: () => sim.runCalls(),
        serverIdle: async () => sim.jobs().every((j) => j.status !== 'IN_QUEUE' && j.status !== 'IN_PROGRESS'),
      };
    },
  },
];

const ENDED: JobState[] = ['completed', 'failed_final', 'failed_retryable', 'timeout_kill', 'cancelled'];

/** Waits until the job's attempt is on the server, rendering. */
async function rendering(u: UnderTest, id: string): Promise<void> {
  await u.farm.waitFor(
    'the render to be sent',
    () => u.sent(id) === 1 && (attemptsOfJob(u.farm.engine.db, id)[0]?.outcome ?? null) === null,
  );
}

for (const pool of POOLS) {
  test(`[${pool.kind}] a job is claimed, rendered once and completed with its outputs in the ledger`, {
    timeout: 60_000,
  }, async (t) => {
    const u = await pool.open(t, {});
    const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
    const [job] = await u.farm.waitForStates([id!], ENDED);
    assert.equal(job?.state, 'completed', job?.stateReason ?? '');
    const attempts = attemptsOfJob(u.farm.engine.db, id!);
    assert.deepEqual(
      attempts.map((a) => [a.instance_name, a.outcome]),
      [[u.instanceName, 'completed']],
    );
    assert.equal(u.sent(id!), 1);
    const { rows } = await u.farm.engine.call('assets.list', {});
    assert.ok(
      rows.length >= 1 && rows.every((a) => existsSync(a.path) && a.jobId === id),
      'its outputs are stored and in the ledger',
    );
  });

  for (const [fail, state] of [
    ['transient', 'failed_final'],
    ['permanent', 'failed_final'],
    ['timeout', 'timeout_kill'],
  ] as const) {
    test(`[${pool.kind}] a ${fail} failure ends the job ${state} in its class, the attempt recorded once`, {
      timeout: 60_000,
    }, async (t) => {
      const u = await pool.open(t, { fail });
      const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
      const [job] = await u.farm.waitForStates([id!], ENDED, 30_000);
      assert.equal(job?.state, state, job?.stateReason ?? '');
      assert.equal(job?.errorClass, fail);
      const attempts = attemptsOfJob(u.farm.engine.db, id!);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]?.error_class, fail);
      await u.farm.waitFor('nothing of ours left on the server', () => u.serverIdle());
    });
  }

  test(`[${pool.kind}] an operator's cancel takes the running render off the server and closes the attempt as cancelled`, {
    timeout: 60_000,
  }, async (t) => {
    const u = await pool.open(t, { renderMs: 20_000 });
    const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
    await rendering(u, id!);
    await u.farm.engine.call('jobs.cancel', { ids: [id!] });
    await u.farm.waitFor('the attempt closed', () => attemptsOfJob(u.farm.engine.db, id!)[0]?.outcome === 'cancelled');
    assert.equal((await u.farm.job(id!)).state, 'cancelled');
    await u.farm.waitFor('nothing of ours left on the server', () => u.serverIdle());
  });

  test(`[${pool.kind}] "stop farm" takes the running render off the server and puts the job back in the queue`, {
    timeout: 60_000,
  }, async (t) => {
    const u = await pool.open(t, { renderMs: 20_000 });
    const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
    await rendering(u, id!);
    await u.farm.engine.call('farm.stop', { by: 'test' });
    const [job] = await u.farm.waitForStates([id!], ['queued']);
    assert.equal(job?.attempts, 0, 'a stop does not count against the job');
    assert.equal(attemptsOfJob(u.farm.engine.db, id!)[0]?.outcome, 'requeued');
    await u.farm.waitFor('nothing of ours left on the server', () => u.serverIdle());
  });

  test(`[${pool.kind}] an engine restart mid-render takes the open attempt up again: completed, rendered once`, {
    timeout: 60_000,
  }, async (t) => {
    // A recovered prompt's progress frames went to the client id of the engine that posted it: no stall timeout while it renders.
    const u = await pool.open(t, { renderMs: 1_500, config: { stallTimeoutS: 60 } });
    const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
    await rendering(u, id!);
    await u.farm.restartEngine();
    const [job] = await u.farm.waitForStates([id!], ENDED, 30_000);
    assert.equal(job?.state, 'completed', job?.stateReason ?? '');
    assert.equal(u.sent(id!), 1, 'not sent again');
    assert.deepEqual(
      attemptsOfJob(u.farm.engine.db, id!).map((a) => a.outcome),
      ['completed'],
    );
  });

  test(`[${pool.kind}] a full output disk holds the farm instead of failing the attempt, and the job completes once there is room`, {
    timeout: 60_000,
  }, async (t) => {
    const disk = fillingDisk(100);
    const u = await pool.open(t, { outputFs: disk, config: { storageRetryMs: 100, storageRetryCapMs: 300 } });
    const [id] = await u.farm.importJobs([{ id: 'sh010' }]);
    await u.farm.waitFor(
      'the farm to hold on the full output disk',
      async () => (await u.farm.engine.call('farm.status', {})).storageHold?.kind === 'output_disk_full',
    );
    assert.match(
      (await u.farm.engine.call('farm.status', {})).storageHold?.reason ?? '',
      new RegExp(`on ${u.instanceName}\\)$`),
    );
    assert.equal((await u.farm.job(id!)).state, 'running', 'not failed for the disk');
    disk.free();
    const [job] = await u.farm.waitForStates([id!], ENDED, 30_000);
    assert.equal(job?.state, 'completed', job?.stateReason ?? '');
    assert.equal(job?.attempts, 1);
    assert.equal(u.sent(id!), 1, 'the render was not sent again');
    await u.farm.waitFor(
      'the hold to be over',
      async () => (await u.farm.engine.call('farm.status', {})).storageHold === null,
    );
  });

  // Not specific to the claim: whichever write meets the full file first holds the farm (the claim's own rule is pools/attempt/claim.ts).
  test(`[${pool.kind}] a full database before dispatch holds the farm: no attempt burned, every job rendered once when there is room`, {
    timeout: 90_000,
  }, async (t) => {
    const u = await pool.open(t, { start: false, config: { storageRetryMs: 100, storageRetryCapMs: 300 } });
    const ids = await u.farm.importJobs(Array.from({ length: 20 }, (_, i) => ({ id: `sh${i}` })));
    const db = u.farm.engine.db;
    // SQLite answers SQLITE_FULL once the file would grow past max_page_count: a full disk, on demand, before the first claim.
    db.sqlite?.pragma(`max_page_count = ${db.sqlite?.pragma('page_count', { simple: true }) as number}`);
    u.farm.startScheduler();
    await u.farm.waitFor(
      'the farm to hold on the full database',
      async () => (await u.farm.engine.call('farm.status', {})).storageHold?.kind === 'database_full',
    );
    db.sqlite?.pragma('max_page_count = 1073741823');
    const done = await u.farm.waitForStates(ids, ENDED, 60_000);
    assert.deepEqual(
      done.filter((j) => j.state !== 'completed').map((j) => [j.shot, j.state, j.stateReason]),
      [],
    );
    assert.deepEqual(
      done.filter((j) => j.attempts !== 1).map((j) => [j.shot, j.attempts]),
      [],
      'no attempt was spent on the full database',
    );
    assert.equal(u.sent(...ids), ids.length, 'every job rendered once');
  });
}

/**
 * For the kill -9 case: a workstation of the kind registered on a data folder, how many renders its
 * server was sent, and the moment to kill (the attempt is on the server and its ids are stored).
 */
interface KillTarget {
  kind: Pool['kind'];
  open(
    t: TestContext,
    renderMs: number,
  ): Promise<{
    register: (e: Engine) => Promise<void>;
    sent: () => number;
    killAt: (dir: string, jobId: string) => boolean;
  }>;
}

const KILL_TARGETS: readonly KillTarget[] = [
  {
    kind: 'comfyui',
    async open(t, renderMs) {
      const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: renderMs } });
      t.after(() => sim.close());
      let jobId = '';
      return {
        register: async (e) => void (await e.call('instances.add', { name: 'sim-0', url: sim.url })),
        sent: () => sim.counts(jobId).received,
        killAt: (_dir, id) => ((jobId = id), sim.counts(id).received === 1),
      };
    },
  },
  {
    kind: 'runpod',
    async open(t, renderMs) {
      const sim = await startRunpodSim({ apiKey: SIM_KEY, coldStartMs: 0, comfy: { duration: { fixedMs: renderMs } } });
      t.after(() => sim.close());
      return {
        async register(e) {
          await e.call('cloud.setApiKey', { apiKey: SIM_KEY });
          await e.call('settings.set', { key: 'burst_budget_usd_per_day', value: 5 });
          await e.call('settings.set', { key: 'burst_after_s', value: 0 });
          await e.call('cloud.addRunpod', {
            name: 'cloud-sim',
            endpointId: sim.endpointId,
            apiBase: sim.apiBase,
            pricePerHourUsd: 1,
            executionTimeoutS: 60,
          });
        },
        sent: () => sim.runCalls(),
        // Killed once the RunPod id is stored (killed before it, the attempt is "unknown on RunPod": cloud-burst-recovery.test.ts).
        killAt: (dir, id) => Boolean(storedAttempt(dir, id)?.runpod_job_id),
      };
    },
  },
];

for (const target of KILL_TARGETS) {
  test(`[${target.kind}] kill -9 of the engine mid-render: the next engine takes the open attempt up again, completed, rendered once`, {
    timeout: 120_000,
  }, async (t) => {
    const w = await target.open(t, 2_000);
    const dir = tempDirFor(t, 'shotfarm-pool-kill-');
    const out = join(dir, 'out');
    const setup = new Engine({ dataDir: dir, outputRoot: out, log: () => {} });
    await setup.call('templates.add', {
      content: readFileSync(resolve(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
      fileName: 'txt2img.json',
    });
    await w.register(setup);
    const list = { project: 'P', episode: 'E', shots: [{ id: 'k1', stage: 'keyframe', template: 'txt2img' }] };
    const preview = await setup.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
    await setup.call('import.commit', { previewId: preview.previewId });
    const jobId = preview.rows[0]?.jobId as string;
    await setup.close();

    await runAndKill(dir, out, () => w.killAt(dir, jobId));
    assert.equal(w.sent(), 1);
    const engine = new Engine({ dataDir: dir, outputRoot: out, log: () => {} });
    t.after(() => engine.close());
    engine.startScheduler({ ...FAST, runpodPollMs: 40 });
    await waitOnEngine(
      engine,
      'the job completed',
      async () => (await engine.call('jobs.get', { id: jobId })).state === 'completed',
      30_000,
    );
    assert.equal(w.sent(), 1, 'not sent again');
    assert.deepEqual(
      attemptsOfJob(engine.db, jobId).map((a) => a.outcome),
      ['completed'],
    );
  });
}
