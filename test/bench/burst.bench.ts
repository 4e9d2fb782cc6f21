/**
 * Cloud burst (issue 18): 4 LAN GPUs and one RunPod endpoint (the RunPod simulator) take a
 * deadline batch. The endpoint takes work only once jobs have waited burst_after_s and stops when
 * today's budget is spent; the makespan, the spend and when the cloud took its first job are printed.
 */
import { attemptsOfJob } from '../../electron/engine/store/attempt-store.js';
import { startSimInstance } from '../simulator/index.js';
import { startRunpodSim } from '../simulator/runpod/server.js';
import { importThroughContract, openBenchEngine, shotListJson, startAndWaitReady } from './lib/bench-engine.js';
import { round, until } from './lib/stats.js';
import { info, numberFlags, type Benchmark, type Figure } from './lib/types.js';

const KEY = 'rp_bench_key_0001';

export const burstBench: Benchmark = {
  name: 'burst',
  description:
    'LAN + cloud: 4 LAN GPUs and one RunPod endpoint on a deadline batch (burst_after_s, the daily budget): makespan and spend',
  onlyByName: true,
  async run(args) {
    const { log } = args;
    const f = numberFlags(args, {
      jobs: [60, 24],
      renderMs: [1000, 400],
      burstAfterS: [4, 2],
      budgetUsd: [0.012, 0.006],
      pricePerHour: [3.6, 3.6],
    });
    const lan = await Promise.all(
      [0, 1, 2, 3].map((i) => startSimInstance({ name: `lan${i}`, duration: { fixedMs: f.renderMs } })),
    );
    const cloud = await startRunpodSim({
      apiKey: KEY,
      coldStartMs: 500,
      workers: 2,
      comfy: { duration: { fixedMs: f.renderMs } },
    });
    const be = await openBenchEngine({
      templates: ['txt2img.json'],
      instances: lan.map((s, i) => ({ url: s.url, name: `lan${i}` })),
    });
    try {
      const e = be.engine;
      await e.call('cloud.setApiKey', { apiKey: KEY });
      await e.call('settings.set', { key: 'burst_after_s', value: f.burstAfterS });
      await e.call('settings.set', { key: 'burst_budget_usd_per_day', value: f.budgetUsd });
      await e.call('cloud.addRunpod', {
        name: 'cloud-sim',
        endpointId: cloud.endpointId,
        apiBase: cloud.apiBase,
        pricePerHourUsd: f.pricePerHour,
        maxConcurrency: 2,
        executionTimeoutS: 120,
      });
      await startAndWaitReady(e, { runpodPollMs: 100, prefetch: false });
      log(
        `${f.jobs} jobs of ${f.renderMs} ms on 4 LAN GPUs + 1 endpoint (2 workers, 500 ms cold start); burst after ${f.burstAfterS} s, budget $${f.budgetUsd}/day at $${f.pricePerHour}/h`,
      );
      const t0 = Date.now();
      const { ids } = await importThroughContract(e, shotListJson(f.jobs, { prefix: 'dl' }));
      const done = await until(
        async () => {
          const views = await Promise.all(ids.map((id) => e.call('jobs.get', { id })));
          return views.every((v) => v.state === 'completed');
        },
        600_000,
        100,
      );
      if (!done) throw new Error('the batch did not complete');
      const makespanS = (Date.now() - t0) / 1000;
      const cloudAttempts = ids.flatMap((id) => attemptsOfJob(e.db, id)).filter((a) => a.runpod_job_id !== null);
      const firstCloudS = cloudAttempts.length
        ? (Math.min(...cloudAttempts.map((a) => a.dispatched_at)) - t0) / 1000
        : null;
      const spend = await e.call('cloud.spend', {});
      const lanOnlyS = (Math.ceil(f.jobs / 4) * f.renderMs) / 1000;
      const figures: Figure[] = [
        info('makespan (LAN + cloud)', `${round(makespanS, 2)} s`, makespanS),
        info('makespan of the LAN alone (ideal, computed)', `${round(lanOnlyS, 2)} s`, lanOnlyS),
        info('jobs the endpoint ran', `${cloudAttempts.length} of ${f.jobs}`, cloudAttempts.length),
        info(
          'first cloud dispatch after the import',
          firstCloudS === null ? 'none' : `${round(firstCloudS, 2)} s (burst_after_s ${f.burstAfterS})`,
          firstCloudS ?? 0,
        ),
        info(
          'cloud spend today',
          `$${spend.totalUsd.toFixed(4)} of $${f.budgetUsd} (${cloud.runCalls()} /run)`,
          spend.totalUsd,
        ),
      ];
      for (const x of figures) log(`${x.figure}: ${x.measured}`);
      return {
        figures,
        details: {
          makespanS,
          cloudJobs: cloudAttempts.length,
          firstCloudS,
          spendUsd: spend.totalUsd,
          runCalls: cloud.runCalls(),
        },
      };
    } finally {
      await be.close();
      await cloud.close();
      await Promise.all(lan.map((s) => s.close()));
    }
  },
};
