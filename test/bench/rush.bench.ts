/**
 * A rush job's start after import while a matching GPU is idle: three 24 GB GPUs are busy with a
 * backlog of 18 GB video jobs, a 12 GB GPU is idle (nothing in the backlog fits it); a one-shot
 * rush keyframe list is imported (preview + commit) and the time until its POST /prompt reaches
 * a simulator is measured (absolute clocks of both processes). Repeated; p99 reported.
 */
import { importThroughContract, openBenchEngine, shotListJson, startAndWaitReady } from './lib/bench-engine.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { absNow, round, sleep, summary, until } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

export const rushBench: Benchmark = {
  name: 'rush',
  description: "a rush job's start after import when a matching GPU is idle (busy farm, deep backlog)",
  async run(args) {
    const { log } = args;
    const { rounds, backlog } = numberFlags(args, { rounds: [40, 10], backlog: [10_000, 2_000] });
    const farm = await startRemoteFarm([
      ...[0, 1, 2].map((i) => ({ name: `big${i}`, vramTotalGb: 24, duration: { fixedMs: 1000 } })),
      { name: 'small', vramTotalGb: 12, duration: { fixedMs: 50 } },
    ]);
    const be = await openBenchEngine({
      instances: farm.urls.map((url, i) => ({ url, name: i < 3 ? `big${i}` : 'small' })),
    });
    try {
      await startAndWaitReady(be.engine);
      log(`backlog: ${backlog} video jobs (18 GB) on 3 × 24 GB; the 12 GB GPU stays idle`);
      const b = await importThroughContract(
        be.engine,
        shotListJson(backlog, {
          prefix: 'vid',
          spec: () => ({ template: 'video18', stage: 'motion', parameters: {} }),
        }),
      );
      if (b.ids.length !== backlog) throw new Error(`backlog: ${b.ids.length} of ${backlog} imported`);
      await sleep(1500);
      const starts: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = absNow();
        const r = await importThroughContract(
          be.engine,
          shotListJson(1, { prefix: `rush${i}-`, spec: () => ({ priority: 'rush' }) }),
        );
        const id = r.ids[0] as string;
        let postedAt: number | null = null;
        const ok = await until(
          async () => {
            const ev = (await farm.events(false)).find((e) => e.k === 'P' && e.id === id);
            if (ev) postedAt = ev.t;
            return ev !== undefined;
          },
          10_000,
          5,
        );
        if (!ok || postedAt === null) throw new Error(`rush job ${i} never reached a GPU`);
        starts.push((postedAt as number) - t0);
        await farm.events(true);
        await until(async () => (await be.engine.call('jobs.get', { id })).state === 'completed', 10_000, 10);
      }
      const s = summary(starts);
      return {
        figures: [
          le('rush start after import (preview + commit → POST) p99', s.p99 / 1000, 1, 's', 3),
          info('  p50 / max', `${s.p50} / ${s.max} ms over ${s.n} rush imports, ${backlog} queued behind`),
        ],
        details: { rounds, backlog, startMs: s, raw: starts.map((x) => round(x)) },
      };
    } finally {
      await be.close();
      await farm.close();
    }
  },
};
