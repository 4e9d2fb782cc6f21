/**
 * Entry of the engine process (an Electron utilityProcess in the app; a Node child in tests). Opens
 * the same Engine the CLI and the headless server use — SQLite, scheduler, ComfyUI clients all run
 * here, off the main process — then serves the host protocol on the parent port.
 *
 * Arguments: `--data DIR` (required, or SHOTFARM_DATA), `--outputs DIR` (optional), `--native-binding
 * FILE` (optional: the app passes its Electron build of better-sqlite3; a Node child uses node_modules').
 */
import { toErrorEnvelope } from '../../shared/errors.js';
import { Engine } from '../engine/engine.js';
import { hostPort } from './parent-port.js';
import { serveEngine, type HostPort } from './engine-service.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const log = (m: string): void => void process.stderr.write(`shotfarm engine: ${m}\n`);
const port = hostPort();
if (!port) {
  log('no host to talk to: start this through the Shotfarm app (or fork it with an IPC channel)');
  process.exit(2);
}

function openEngine(host: HostPort): Engine | null {
  const dataDir = argValue('--data') ?? process.env.SHOTFARM_DATA;
  try {
    if (!dataDir) throw new Error('The engine process needs --data DIR (the folder holding shotfarm.sqlite).');
    // The desktop app runs the data folder's farm: a `serve` or `run` already running it is named in the refusal.
    const engine = new Engine({
      dataDir,
      log,
      outputRoot: argValue('--outputs'),
      nativeBinding: argValue('--native-binding'),
      kind: 'desktop',
      env: process.env,
    });
    // Reconciles attempts left open by a previous engine (a crash or a kill), then dispatches.
    engine.startScheduler();
    return engine;
  } catch (err) {
    host.postMessage({ fatal: toErrorEnvelope(err) });
    log(`cannot start: ${(err as Error).message}`);
    // Let the message leave before exiting; the host decides whether to restart.
    setTimeout(() => process.exit(3), 100);
    return null;
  }
}

/**
 * Quitting the app (the host's `shutdown`), SIGTERM or a lost host: the engine closes gracefully —
 * downloads in flight finish for a bounded time (Scheduler.close), the rest are collected at the
 * next start — then the process exits. The host waits longer than that bound before it kills.
 */
function run(host: HostPort, engine: Engine): void {
  let closing = false;
  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    service.close();
    let code = 0;
    try {
      await engine.close();
    } catch (err) {
      log(`closing the engine failed: ${(err as Error).message}`);
      code = 1;
    }
    process.exit(code);
  };
  const service = serveEngine({ engine, port: host, log, onShutdown: () => void shutdown() });
  // kill() from the host is SIGTERM; a closed IPC channel means the host is gone.
  process.on('SIGTERM', () => void shutdown());
  process.on('disconnect', () => void shutdown());
  host.postMessage({ ready: true });
}

const engine = openEngine(port);
if (engine) run(port, engine);
