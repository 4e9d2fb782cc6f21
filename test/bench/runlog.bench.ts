/**
 * Run-log CSV of 100,000 attempts: attempt rows inserted straight into the store (the shape the
 * runner writes, test/helpers/attempt-fixtures.ts), then `export.runlog` timed, with the heap
 * sampled during the export (flat memory = the export streams).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openBenchEngine } from './lib/bench-engine.js';
import { dataDirWith, queuedStoreInChild } from './lib/queue-fixture.js';
import { gcNow, mb, round, sampler } from './lib/stats.js';
import { info, le, type Benchmark } from './lib/types.js';

export const runlogBench: Benchmark = {
  name: 'runlog',
  description: 'run-log CSV export of 100k attempts, time and heap',
  async run({ quick, log }) {
    const rows = quick ? 20_000 : 100_000;
    const dir = dataDirWith(queuedStoreInChild(rows));
    const be = await openBenchEngine({ dataDir: dir.path });
    try {
      const db = be.engine.db;
      const ids = (db.all('SELECT id FROM jobs') as { id: string }[]).map((r) => r.id);
      const base = Date.UTC(2026, 10, 1);
      // The row shape of test/helpers/attempt-fixtures.ts insertAttempt, with ids unique at 100k
      // (the helper's `att-<8 hex of job id>-<n>` collides past a few tens of thousands of jobs).
      const insert = (...params: unknown[]) =>
        db.run(
          `INSERT INTO attempts (id, job_id, n, instance_id, instance_name, gpu_name, state, outcome, error_class, reason, node_id, node_type,
          queued_at, dispatched_at, started_at, finished_at, vram_at_dispatch)
         VALUES (?, ?, 1, NULL, ?, 'NVIDIA GeForce RTX 4090', 'ended', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ...params,
        );
      db.transaction(() => {
        ids.forEach((jobId, i) => {
          const t = base + i * 1000;
          const oom = i % 10 === 0;
          insert(
            `att-${jobId}-1`,
            jobId,
            `gpu-${String(i % 16).padStart(2, '0')}`,
            oom ? 'retry' : 'completed',
            oom ? 'oom' : null,
            oom ? 'out of GPU memory on gpu-03' : null,
            oom ? '3' : null,
            oom ? 'KSampler' : null,
            t - 5000,
            t,
            t + 100,
            t + 9000,
            24 * 1024 ** 3,
          );
        });
      });
      log(`${ids.length} attempt rows inserted`);
      gcNow();
      const heap0 = process.memoryUsage().heapUsed;
      const rss0 = process.memoryUsage().rss;
      const heap = sampler(20, () => process.memoryUsage().heapUsed);
      const path = join(dir.path, 'runlog.csv');
      const t0 = performance.now();
      const r = await be.engine.call('export.runlog', { path });
      const s = (performance.now() - t0) / 1000;
      const samples = heap.stop();
      const peak = Math.max(...samples) - heap0;
      gcNow();
      const after = process.memoryUsage().heapUsed - heap0;
      return {
        figures: [
          le(`run-log CSV of ${rows / 1000}k attempts`, s, 2, 's'),
          info(
            '  heap: peak above baseline during export / after export (GC)',
            `${mb(peak)} MB / ${mb(after)} MB (${r.rows} rows, ${mb(statSync(path).size)} MB file)`,
          ),
        ],
        details: {
          rows: r.rows,
          seconds: round(s),
          heapPeakDeltaMb: mb(peak),
          heapAfterDeltaMb: mb(after),
          rssBeforeMb: mb(rss0),
          fileMb: mb(statSync(path).size),
        },
      };
    } finally {
      await be.close();
      dir.cleanup();
    }
  },
};
