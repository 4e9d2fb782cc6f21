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
  engine.events.on('job.changed', () => void process.stdout.write('job\n'));
  // A graceful stop waits up to 2 s for downloads in flight, then leaves them for the next start.
  engine.startScheduler({ ...FAST, retry: { maxAttempts: 12, baseMs: 10, capMs: 200 }, stallTimeoutS: 10, stopGraceMs: 2_000 });
  process.stdout.write('started\n');
  process.on('SIGTERM', () => {
    void engine.close().then(() => process.exit(0));
  });
});
