/**
 * Soak: a steady farm (8 simulated GPUs, 50–150 ms prompts) for `--minutes` (default 60), the queue
 * topped up through the contract whenever it runs low. Memory growth = engine process RSS (and
 * heap after a GC) at the end minus right after a warm-up of 10 % of the run (at least 10 s); RSS is
 * the median of the last minute of 2 s samples (it swings by ±100 MB between collections).
 */
import {
  importThroughContract,
  openBenchEngine,
  shotListJson,
  startAndWaitReady,
  stateCounts,
} from './lib/bench-engine.js';
import { probeEngine } from './lib/engine-probes.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { gcNow, mb, median, round, sleep } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

export const soakBench: Benchmark = {
  name: 'soak',
  description: 'memory growth over a long steady run (--minutes, default 60)',
  onlyByName: true,
  async run(args) {
    const { minutes } = numberFlags(args, { minutes: 60 });
    const totalMs = minutes * 60_000;
    const warmMs = Math.max(10_000, totalMs / 10);
    const farm = await startRemoteFarm(
      Array.from({ length: 8 }, (_, i) => ({ name: `s${i}`, duration: { fixedMs: 50, randomMs: [0, 100], seed: i } })),
    );
    const be = await openBenchEngine({ instances: farm.urls.map((url) => ({ url })) });
    try {
      await startAndWaitReady(be.engine);
      const probe = probeEngine(be.engine, { memEveryMs: 2000, keepTimes: false });
      const t0 = Date.now();
      let batch = 0;
      let warm: { rss: number; heap: number } | null = null;
      let lastLog = t0;
      while (Date.now() - t0 < totalMs) {
        const queued = stateCounts(be.engine).queued ?? 0;
        if (queued < 300) {
          await importThroughContract(be.engine, shotListJson(1000, { prefix: `b${batch++}-` }));
          await farm.events(true); // the simulator side keeps no per-prompt log during a soak
        }
        if (!warm && Date.now() - t0 >= warmMs) {
          gcNow();
          warm = { rss: median(probe.rss.slice(-30)), heap: process.memoryUsage().heapUsed };
          args.log(`warm: RSS ${mb(warm.rss)} MB, heap ${mb(warm.heap)} MB`);
        }
        if (Date.now() - lastLog > 60_000) {
          lastLog = Date.now();
          args.log(
            `${round((Date.now() - t0) / 60_000, 1)} min: ${probe.completedCount()} completed, RSS ${mb(process.memoryUsage().rss)} MB`,
          );
        }
        await sleep(1000);
      }
      probe.stop();
      gcNow();
      const end = { rss: median(probe.rss.slice(-30)), heap: process.memoryUsage().heapUsed };
      const w = warm ?? end;
      const growth = end.rss - w.rss;
      return {
        figures: [
          le(`memory growth over ${minutes} min (engine RSS, end − warm)`, mb(growth), 50, 'MB', 1),
          info(
            '  heap after GC: warm → end; jobs completed',
            `${mb(w.heap)} → ${mb(end.heap)} MB; ${probe.completedCount()} jobs (${round(probe.completedCount() / (totalMs / 1000), 1)}/s)`,
          ),
        ],
        details: {
          minutes,
          warmRssMb: mb(w.rss),
          endRssMb: mb(end.rss),
          warmHeapMb: mb(w.heap),
          endHeapMb: mb(end.heap),
          completed: probe.completedCount(),
          rssSamplesMb: probe.rss.map(mb),
        },
      };
    } finally {
      await be.close();
      await farm.close();
    }
  },
};
