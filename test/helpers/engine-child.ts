/**
 * An engine in a process of its own, for kill tests. It loads everything, prints "ready", and waits
 * for a line on stdin before it opens the data folder — so the next engine can boot while the
 * current one runs, and only one engine at a time ever has the folder open. Then it starts the
 * scheduler with short timings, prints "started", prints "job" at every job change, and runs until
 * killed (SIGKILL in the tests) or sent SIGTERM. A third argument is the farm's PostgreSQL URL
 * (the engine's `databaseUrl`); without it the store is the data folder's SQLite file.
 */
import { Engine } from '../../electron/engine/engine.js';
import { untilStopped } from '../../electron/cli/stop-signals.js';
import { FAST } from './fast-timings.js';

const [dataDir, outputRoot, databaseUrl] = process.argv.slice(2) as [string, string, string | undefined];
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  process.stdin.pause();
  const engine = new Engine({ dataDir, outputRoot, databaseUrl, log: (m) => process.stderr.write(`${m}\n`) });
  let lastChange = Date.now();
  const states = new Map<string, string>();
  engine.events.on('job.changed', ({ job }) => {
    // Only a change of state counts as moving: contact marks and progress republish a job as it is.
    if (states.get(job.id) !== job.state) lastChange = Date.now();
    states.set(job.id, job.state);
    process.stdout.write('job\n');
  });
  // Diagnosis of a run that stops moving (the kill test's rare hang): after 15 s without a job
  // state change, say what each attempt runner is doing. Runtime fields, read from outside on purpose.
  setInterval(() => {
    if (Date.now() - lastChange < 15_000) return;
    // The LAN pool's runners (pools/comfy-lan/comfy-lan-pool.ts), reached through the scheduler's `lan`.
    const s = (
      engine.scheduler as unknown as {
        lan?: {
          runners?: Map<string, Record<string, unknown> & { attemptId: string; job: { id: string }; resume?: unknown }>;
        };
      } | null
    )?.lan;
    const plain = (r: Record<string, unknown>): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(r).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)),
      );
    const runners = [...(s?.runners?.values() ?? [])].map((r) => ({
      ...plain(r),
      job: r.job.id,
      exec: r['exec'],
      resumed: r.resume !== null && r.resume !== undefined,
    }));
    process.stderr.write(
      `no job state change for ${Math.round((Date.now() - lastChange) / 1000)} s; runners: ${JSON.stringify(runners)}\n`,
    );
  }, 15_000).unref();
  // A graceful stop waits up to 2 s for downloads in flight, then leaves them for the next start.
  engine.startScheduler({
    ...FAST,
    retry: { maxAttempts: 12, baseMs: 10, capMs: 200 },
    stallTimeoutS: 10,
    stopGraceMs: 2_000,
  });
  process.stdout.write('started\n');
  // As `run` does: the engine's own timers never keep a process alive, so without this the child
  // left by itself (exit 0, not a word) whenever nothing was in flight — a recovering engine waiting
  // on a timer — and the test waited for a farm no engine ran. SIGTERM stops it gracefully.
  const stop = untilStopped(() => undefined);
  void stop.stopped.then(() => engine.close()).then(() => process.exit(0));
});
