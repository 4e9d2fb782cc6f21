/**
 * An engine in a process of its own, for kill tests. It loads everything, prints "ready", and waits
 * for a line on stdin before it opens the data folder — so the next engine can boot while the
 * current one runs, and only one engine at a time ever has the folder open. Then it starts the
 * scheduler with short timings, prints "started", prints "job" at every job change, and runs until
 * killed (SIGKILL in the tests) or sent SIGTERM.
 */
import { Engine } from '../../electron/engine/engine.js';
import { FAST } from './fast-timings.js';

const [dataDir, outputRoot] = process.argv.slice(2) as [string, string];
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  process.stdin.pause();
  const engine = new Engine({ dataDir, outputRoot, log: (m) => process.stderr.write(`${m}\n`) });
  let lastChange = Date.now();
  engine.events.on('job.changed', () => {
    lastChange = Date.now();
    process.stdout.write('job\n');
  });
  // Diagnosis of a run that stops moving (the kill test's rare hang): after 15 s without a job
  // change, say what each attempt runner is doing. Runtime fields, read from outside on purpose.
  setInterval(() => {
    if (Date.now() - lastChange < 15_000) return;
    const s = engine.scheduler as unknown as { runners?: Map<string, { attemptId: string; job: { id: string }; stopMode: unknown; step?: string; exec?: unknown; postedWith?: unknown; resume?: unknown }> } | null;
    const runners = [...(s?.runners?.values() ?? [])].map((r) => ({ attempt: r.attemptId, job: r.job.id, stop: r.stopMode, step: r.step, exec: r.exec, postedWith: r.postedWith, resumed: r.resume !== null }));
    process.stderr.write(`no job change for ${Math.round((Date.now() - lastChange) / 1000)} s; runners: ${JSON.stringify(runners)}\n`);
  }, 15_000).unref();
  // A graceful stop waits up to 2 s for downloads in flight, then leaves them for the next start.
  engine.startScheduler({ ...FAST, retry: { maxAttempts: 12, baseMs: 10, capMs: 200 }, stallTimeoutS: 10, stopGraceMs: 2_000 });
  process.stdout.write('started\n');
  process.on('SIGTERM', () => {
    void engine.close().then(() => process.exit(0));
  });
});
