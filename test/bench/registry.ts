/** Every benchmark `npm run bench` knows, in the order they run. */
import { burstBench } from './burst.bench.js';
import { chaosBench } from './chaos.bench.js';
import { collectBench } from './collect.bench.js';
import { dbMigrateBench } from './db-migrate.bench.js';
import { dispatchBench } from './dispatch.bench.js';
import { enginesWakeBench } from './engines-wake.bench.js';
import { gapsBench } from './gaps.bench.js';
import { forecastBench } from './forecast.bench.js';
import { forecastScaleBench } from './forecast-scale.bench.js';
import { importBench } from './import.bench.js';
import { makespanBench } from './makespan.bench.js';
import { postgresBridgeBench } from './postgres-bridge.bench.js';
import { runlogBench } from './runlog.bench.js';
import { scaleBench } from './scale.bench.js';
import { sdkBench } from './sdk.bench.js';
import { rushBench } from './rush.bench.js';
import { simulatorBench } from './simulator.bench.js';
import { studioCallsBench } from './studio-calls.bench.js';
import { soakBench } from './soak.bench.js';
import { storesBench } from './stores.bench.js';
import { throughputBench } from './throughput.bench.js';
import { uiBench } from './ui.bench.js';
import { vramBench } from './vram.bench.js';
import { workersImportBench } from './workers-import.bench.js';
import type { Benchmark } from './lib/types.js';

export const BENCHMARKS: Benchmark[] = [
  simulatorBench,
  dispatchBench,
  gapsBench,
  makespanBench,
  rushBench,
  forecastBench,
  forecastScaleBench,
  importBench,
  workersImportBench,
  postgresBridgeBench,
  dbMigrateBench,
  storesBench,
  enginesWakeBench,
  throughputBench,
  collectBench,
  runlogBench,
  uiBench,
  chaosBench,
  soakBench,
  burstBench,
  studioCallsBench,
  scaleBench,
  sdkBench,
  vramBench,
];
