/**
 * Intake: a 100,000-row shot list through the contract (import.preview + import.commit) with the
 * scheduler running over 16 simulated workstations (so the preview also checks node lists), and
 * the latency of one durable enqueue (a one-shot list, preview + commit, synchronous=FULL).
 */
import { importThroughContract, openBenchEngine, shotListJson, startAndWaitReady } from './lib/bench-engine.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { round, summary } from './lib/stats.js';
import { info, le, type Benchmark } from './lib/types.js';

export const importBench: Benchmark = {
  name: 'import',
  description: 'import 100k rows (preview + commit) and one durable enqueue',
  async run({ quick, log }) {
    const rows = quick ? 20_000 : 100_000;
    // Long prompts: the farm stays busy with 16 jobs and the import is what is measured.
    const farm = await startRemoteFarm(
      Array.from({ length: 16 }, (_, i) => ({ name: `g${i}`, duration: { fixedMs: 60_000 } })),
    );
    const be = await openBenchEngine({ instances: farm.urls.map((url) => ({ url })) });
    try {
      await startAndWaitReady(be.engine);
      const content = shotListJson(rows);
      log(`import: ${rows} rows, ${(content.length / 1e6).toFixed(1)} MB of JSON`);
      const big = await importThroughContract(be.engine, content, 'big.json');
      if (big.ids.length !== rows) throw new Error(`imported ${big.ids.length} of ${rows} (${big.errors} errors)`);
      const totalS = (big.previewMs + big.commitMs) / 1000;
      const scaled = totalS * (100_000 / rows);

      // One durable enqueue: a one-shot list, 200 times, with 100k jobs already stored.
      const commits: number[] = [];
      const wholes: number[] = [];
      for (let i = 0; i < (quick ? 100 : 300); i++) {
        const r = await importThroughContract(be.engine, shotListJson(1, { prefix: `one${i}-` }), 'one.json');
        commits.push(r.commitMs);
        wholes.push(r.previewMs + r.commitMs);
      }
      const c = summary(commits);
      const w = summary(wholes);
      return {
        figures: [
          le(
            `import ${rows / 1000}k rows (preview + commit)${quick ? ' ×5 scaled' : ''}`,
            quick ? scaled : totalS,
            3,
            's',
          ),
          info('  of which preview / commit', `${round(big.previewMs / 1000)} s / ${round(big.commitMs / 1000)} s`),
          le('one durable enqueue (commit) p99', c.p99, 5, 'ms'),
          info('  one-row preview + commit p50 / p99', `${w.p50} / ${w.p99} ms`),
        ],
        details: {
          rows,
          previewMs: round(big.previewMs),
          commitMs: round(big.commitMs),
          enqueueCommit: c,
          enqueuePreviewCommit: w,
        },
      };
    } finally {
      await be.close();
      await farm.close();
    }
  },
};
