/**
 * The engine as its own process, for the chaos benchmark: opens the store in `argv[2]`, starts the
 * scheduler with short timings, reports `ready` and each dispatch (absolute times) to the parent
 * over IPC, and runs until SIGKILLed — or closes cleanly on a `close` message, or stops gracefully
 * on SIGTERM (downloads in flight get 3 s, then are left for the next start).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../electron/engine/engine.js';
import { FAST } from '../../helpers/farm.js';
import { absNow } from './stats.js';

/** Top-level code runs once every import is loaded: spawn → here is Node + module start-up. */
const loadedAt = absNow();
const dataDir = process.argv[2] as string;
const bootAt = Number(process.argv[3] ?? absNow());
/** Several engines on one PostgreSQL farm (`chaos --engines N`): the database and the lease. */
const databaseUrl = process.argv[4] || undefined;
const leaseMs = process.argv[5] ? Number(process.argv[5]) : undefined;
/** The probe interval: 250 ms for the chaos (health seen at once), the farm's default 2 s for the rate comparison. */
const probeIntervalMs = process.argv[6] ? Number(process.argv[6]) : 250;
const logFile = join(dataDir, 'engine.log');
const log = (m: string): void => appendFileSync(logFile, `${new Date().toISOString()} [${process.pid}] ${m}\n`);

const engine = new Engine({ dataDir, databaseUrl, outputRoot: join(dataDir, 'out'), log });
const s = engine.startScheduler({
  ...FAST,
  probeIntervalMs,
  stopGraceMs: 3_000,
  ...(leaseMs !== undefined ? { leaseMs } : {}),
});
let dispatches = 0;
s.onDispatch = (jobId, instanceId) => {
  dispatches++;
  // On a shared farm the parent times adoption: every dispatch, with its workstation.
  if (databaseUrl) process.send?.({ t: 'd', at: absNow(), jobId, instanceId });
  if (dispatches === 1) process.send?.({ t: 'dispatch', at: absNow(), jobId });
};
process.send?.({ t: 'ready', at: absNow(), bootAt, loadedAt });
process.on('message', (m) => {
  if ((m as { t?: string }).t === 'close') {
    void engine.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  }
});
process.on('SIGTERM', () => {
  log('SIGTERM: stopping gracefully');
  void engine.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
process.on('disconnect', () => process.exit(0));
