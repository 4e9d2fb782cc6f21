/**
 * What one forecast costs at studio scale (issue 28): 123k and 500k waiting jobs over three
 * episodes of two projects (each job its own seed and one of three image sizes, as a shot list's
 * are), on eight workstations of two GPU models. A forecast runs on the engine's thread, so its
 * time is how long the engine stops answering. Printed per size: the forecast as the farm computes
 * it, and the exact per-job play-forward of every job, with the episodes' p50 ends side by side.
 *
 *   npm run bench -- forecast-scale [--sizes 123456,500000]
 */
import { copyJob } from '../helpers/job-copies.js';
import { startFarm } from '../helpers/farm.js';
import { round } from './lib/stats.js';
import { info, le, type Benchmark, type Figure } from './lib/types.js';

const HOUR = 3_600_000;

export const forecastScaleBench: Benchmark = {
  name: 'forecast-scale',
  description:
    'one forecast of 123k / 500k waiting jobs: milliseconds the engine is busy, and its error against the exact play-forward',
  async run(args) {
    const sizes = (args.flags.sizes ?? (args.quick ? '123456' : '123456,500000')).split(',').map(Number);
    const farm = await startFarm({
      instances: Array.from({ length: 8 }, (_, i) => ({
        gpuName: i < 4 ? 'RTX 4090' : 'RTX 3060',
        duration: { fixedMs: 3_600_000 },
      })),
    });
    const figures: Figure[] = [];
    const details: Record<string, unknown>[] = [];
    try {
      const e = farm.engine;
      await farm.waitFor('the workstations are healthy', () => e.forecast.compute(Date.now()).slots >= 8, 30_000);
      const lists = [
        { project: 'Moonfall', episode: 'ep101', due: Date.now() + 24 * HOUR, priority: 'normal' },
        { project: 'Moonfall', episode: 'ep102', due: Date.now() + 48 * HOUR, priority: 'high' },
        { project: 'Lantern', episode: 'ep201', due: Date.now() + 72 * HOUR, priority: 'normal' },
      ];
      const firsts: string[] = [];
      for (const l of lists) {
        const list = {
          ...l,
          due: new Date(l.due).toISOString(),
          shots: Array.from({ length: 4 }, (_, i) => ({
            id: `sq0${i % 2}0_sh${i}0`,
            stage: 'keyframe',
            template: 'txt2img',
          })),
        };
        const p = await e.call('import.preview', { fileName: 'l.json', content: JSON.stringify(list) });
        await e.call('import.commit', { previewId: p.previewId });
        firsts.push((await e.call('jobs.list', { filter: { episode: l.episode }, limit: 1 })).rows[0]?.id as string);
      }
      let have = 0;
      for (const n of sizes) {
        const add = n - have;
        for (const [i, id] of firsts.entries())
          copyJob(e.db, id, Math.round((add * [0.5, 0.2, 0.3][i]!) as number), 'queued', have + 10);
        // Each its own seed, one of three sizes: no two jobs share their parameters.
        e.db.run(
          `UPDATE jobs SET params_json = json_set(params_json, '$.seed', rowid, '$.width', 512 * (1 << (rowid % 3)))
            WHERE state = 'queued'`,
        );
        have = n;
        const waiting = e.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state = 'queued'")?.n ?? 0;
        const times: number[] = [];
        let view = e.forecast.compute(Date.now());
        for (let k = 0; k < 3; k++) {
          const t0 = performance.now();
          view = e.forecast.compute(Date.now());
          times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        const ms = times[1] as number;
        const exact = e.forecast.compute(Date.now(), { exact: true });
        const t0 = performance.now();
        e.forecast.compute(Date.now(), { exact: true });
        const exactMs = performance.now() - t0;
        const errors = lists.map((l) => {
          const key = `${l.project}/${l.episode}`;
          const a = view.groups.find((g) => g.key === key);
          const b = exact.groups.find((g) => g.key === key);
          const left = (b?.p50At ?? 0) - view.at;
          return {
            key,
            p50: a?.p50At,
            exactP50: b?.p50At,
            errorOfLeft: Math.abs((a?.p50At ?? 0) - (b?.p50At ?? 0)) / Math.max(1, left),
          };
        });
        const worst = Math.max(...errors.map((x) => x.errorOfLeft));
        args.log(
          `${waiting.toLocaleString()} waiting: one forecast ${round(ms, 1)} ms (exact play-forward ${round(exactMs, 1)} ms); worst episode p50 off by ${(worst * 100).toFixed(2)} % of the time left`,
        );
        figures.push(
          le(`one forecast, ${waiting.toLocaleString()} waiting`, ms, 250, 'ms', 1),
          info(`exact play-forward, ${waiting.toLocaleString()} waiting`, `${round(exactMs, 1)} ms`, exactMs),
          le(
            `episode p50 against the exact play-forward, ${waiting.toLocaleString()} waiting`,
            worst * 100,
            2,
            '% of the time left',
          ),
        );
        details.push({ waiting, ms, times, exactMs, errors });
      }
    } finally {
      await farm.close();
    }
    return { figures, details: { runs: details } };
  },
};
