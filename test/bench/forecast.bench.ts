/**
 * Forecast accuracy (issue 28): an episode on four simulated GPUs of two speeds (simulators in a
 * child process, as a real farm's are elsewhere), a rush import of another episode halfway. The
 * forecast is made at 10, 25 and 50 % done and compared with the episode's actual finish; the error
 * is printed as a share of the whole run and of the time that was left. Also times one forecast.
 */
import { importThroughContract, openBenchEngine, shotListJson, startAndWaitReady } from './lib/bench-engine.js';
import { modelLines, paceLines } from './lib/forecast-diag.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { round, until } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

export const forecastBench: Benchmark = {
  name: 'forecast',
  description: 'forecast error at 10 / 25 / 50 % done: an episode on mixed-speed GPUs, a rush import midway',
  async run(args) {
    const { log } = args;
    const { jobs, rush, fastMs, slowMs } = numberFlags(args, {
      jobs: [200, 100],
      rush: [10, 5],
      fastMs: [500, 300],
      slowMs: [1_200, 700],
    });
    const farm = await startRemoteFarm([
      ...[0, 1].map((i) => ({
        name: `fast${i}`,
        gpuName: 'FAST GPU',
        duration: { fixedMs: fastMs, randomMs: [0, fastMs / 5] as [number, number], seed: i + 1 },
      })),
      ...[0, 1].map((i) => ({
        name: `slow${i}`,
        gpuName: 'SLOW GPU',
        duration: { fixedMs: slowMs, randomMs: [0, slowMs / 5] as [number, number], seed: i + 3 },
      })),
    ]);
    const be = await openBenchEngine({ instances: farm.urls.map((url) => ({ url })) });
    try {
      await startAndWaitReady(be.engine);
      const e = be.engine;
      const start = Date.now();
      const ep = await importThroughContract(e, shotListJson(jobs, { project: 'Bench', episode: 'ep101' }));
      if (ep.ids.length !== jobs) throw new Error(`imported ${ep.ids.length} of ${jobs}`);
      const done = async () =>
        (await e.call('jobs.list', { filter: { episode: 'ep101', states: ['completed'] }, limit: 1 })).total;
      const made: { at: number; share: number; p50: number; p90: number; computeMs: number }[] = [];
      let rushed = false;
      for (const share of [0.1, 0.25, 0.5]) {
        await until(async () => (await done()) >= jobs * share, 600_000, 50);
        const t0 = performance.now();
        const g = e.forecast.compute(Date.now()).groups.find((x) => x.key === 'Bench/ep101');
        const computeMs = performance.now() - t0;
        if (!g?.p50At || !g.p90At) throw new Error(`no forecast at ${share * 100} %`);
        made.push({ at: Date.now(), share, p50: g.p50At, p90: g.p90At, computeMs });
        const templateId = e.db.one<{ t: number }>("SELECT template_id AS t FROM jobs WHERE episode = 'ep101' LIMIT 1")
          ?.t as number;
        for (const line of modelLines(e.db, templateId, ['FAST GPU', 'SLOW GPU']))
          log(`at ${share * 100} % done, the model: ${line}`);
        if (share === 0.5 && !rushed) {
          rushed = true;
          await importThroughContract(
            e,
            shotListJson(rush, {
              project: 'Bench',
              episode: 'ep102',
              prefix: 'rush',
              spec: () => ({ priority: 'rush' }),
            }),
          );
          log(`rush import of ${rush} jobs at 50 % done`);
        }
      }
      await until(async () => (await done()) >= jobs, 600_000, 50);
      const finished = e.db.one<{ t: number }>(
        "SELECT MAX(finished_at) AS t FROM jobs WHERE episode = 'ep101' AND state = 'completed'",
      )?.t as number;
      const run = finished - start;
      const rows = made.map((m) => ({
        share: m.share,
        errorOfRun: Math.abs(m.p50 - finished) / run,
        errorOfRest: Math.abs(m.p50 - finished) / Math.max(1, finished - m.at),
        inRange: finished >= m.p50 && finished <= m.p90,
        computeMs: m.computeMs,
      }));
      for (const [i, r] of rows.entries()) {
        const m = made[i] as (typeof made)[number];
        log(
          `at ${r.share * 100} % done: error ${(r.errorOfRun * 100).toFixed(1)} % of the run (${m.p50 < finished ? 'early' : 'late'}), ${(r.errorOfRest * 100).toFixed(1)} % of the time left; actual ${r.inRange ? 'inside' : 'outside'} p50–p90`,
        );
        for (const line of paceLines(e.db, m.at)) log(`   from then on, ${line}`);
      }
      const at10 = rows[0] as (typeof rows)[number];
      return {
        figures: [
          le('forecast error at 10 % done (share of the run)', at10.errorOfRun * 100, 15, '%', 1),
          ...rows
            .slice(1)
            .map((r) =>
              info(
                `forecast error at ${r.share * 100} % done`,
                `${(r.errorOfRun * 100).toFixed(1)} % of the run, ${(r.errorOfRest * 100).toFixed(1)} % of the time left`,
                r.errorOfRun * 100,
              ),
            ),
          info('actual finish', `${(run / 1000).toFixed(1)} s for ${jobs} jobs on 4 GPUs (+${rush} rush midway)`, run),
          info('one forecast', `${made.map((m) => round(m.computeMs, 1)).join(' / ')} ms`),
        ],
        details: { jobs, rush, fastMs, slowMs, runMs: run, rows },
      };
    } finally {
      await be.close();
      await farm.close();
    }
  },
};
