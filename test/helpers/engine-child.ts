/**
 * An engine in a process of its own, for kill tests: opens the data folder, starts the scheduler
 * with short timings, prints "started", and runs until killed (SIGKILL in the tests) or until
 * stdin closes after `--until-idle`-like conditions are met by the parent.
 */
import { Engine } from '../../electron/engine/engine.js';
import { FAST } from './fast-timings.js';

const [dataDir, outputRoot] = process.argv.slice(2) as [string, string];
const engine = new Engine({ dataDir, outputRoot, log: (m) => process.stderr.write(`${m}\n`) });
engine.startScheduler({ ...FAST, retry: { maxAttempts: 12, baseMs: 10, capMs: 200 }, stallTimeoutS: 10 });
process.stdout.write('started\n');
process.on('SIGTERM', () => {
  void engine.close().then(() => process.exit(0));
});
