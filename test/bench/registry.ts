/** Every benchmark `npm run bench` knows, in the order they run. */
import { burstBench } from './burst.bench.js';
import { chaosBench } from './chaos.bench.js';
import { collectBench } from './collect.bench.js';
import { dispatchBench } from './dispatch.bench.js';
import { gapsBench } from './gaps.bench.js';
import { importBench } from './import.bench.js';
import { makespanBench } from './makespan.bench.js';
import { postgresBridgeBench } from './postgres-bridge.bench.js';
import { runlogBench } from './runlog.bench.js';
import { rushBench } from './rush.bench.js';
import { simulatorBench } from './simulator.bench.js';
import { soakBench } from './soak.bench.js';
import { throughputBench } from './throughput.bench.js';
import { uiBench } from './ui.bench.js';
import { workersImportBench } from './workers-import.bench.js';
import type { Benchmark } from './lib/types.js';

export const BENCHMARKS: Benchmark[] = [
  simulatorBench,
  dispatchBench,
  gapsBench,
  makespanBench,
  rushBench,
  importBench,
  workersImportBench,
  postgresBridgeBench,
  throughputBench,
  collectBench,
  runlogBench,
  uiBench,
  chaosBench,
  soakBench,
  burstBench,
];
