/**
 * `shotfarm serve`: the headless host — the engine with its scheduler, the API over HTTP/WebSocket
 * and the built UI, until Ctrl+C. `--demo` adds a simulated three-GPU farm and a sample episode
 * (on a throw-away data folder unless --data is given).
 */
import type { Command } from 'commander';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { defaultDataDir } from '../engine/data-dir.js';
import { Engine } from '../engine/engine.js';
import { DEMO_LABEL, DEMO_SAMPLES_DIR, startDemoFarm, type DemoFarm } from '../server/demo-farm.js';
import { DEFAULT_STATIC_DIR, startServer } from '../server/server.js';
import type { Io } from './context.js';

interface ServeOptions {
  listen: string;
  port: string;
  demo?: boolean;
  token?: string;
  static?: string;
  data?: string;
}

/** Resolves when the process is asked to stop. */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

export async function runServe(io: Io, o: ServeOptions, stop: Promise<void> = untilSignal()): Promise<void> {
  const port = Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ShotfarmError('bad_input', `--port must be 0–65535; got "${o.port}".`);
  const tempDemo = o.demo && !o.data ? mkdtempSync(join(tmpdir(), 'shotfarm-demo-')) : null;
  const dataDir = o.data ?? tempDemo ?? defaultDataDir();
  const staticDir = o.static ?? DEFAULT_STATIC_DIR;
  if (!existsSync(join(staticDir, 'index.html'))) io.err(`shotfarm: no built UI in ${staticDir}; run \`npm run build:renderer\` first (the API still works).`);

  const engine = new Engine({ dataDir, log: (m) => io.err(`shotfarm: ${m}`) });
  let demo: DemoFarm | null = null;
  try {
    if (o.demo) demo = await startDemoFarm(engine);
    engine.startScheduler();
    const server = await startServer({
      engine, host: o.listen, port, token: o.token, staticDir,
      demoLabel: o.demo ? DEMO_LABEL : undefined, importBaseDir: o.demo ? DEMO_SAMPLES_DIR : undefined,
    });
    // A wildcard listen address is not something to type into a browser: show this machine's name.
    const shown = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])/, `//${hostname()}`);
    io.out(`Shotfarm${o.demo ? ' (demo farm)' : ''} serving ${dataDir}`);
    io.out(`Open ${shown}/${server.token ? `?token=${server.token}` : ''}`);
    if (server.token) io.out(`Access token: ${server.token} (scripts send it as "Authorization: Bearer …")`);
    io.out('Press Ctrl+C to stop.');
    await stop;
    await server.close();
  } finally {
    await engine.close().catch(() => undefined);
    await demo?.close();
    if (tempDemo) rmSync(tempDemo, { recursive: true, force: true });
  }
}

export function registerServe(program: Command, io: Io): void {
  program
    .command('serve')
    .description('serve the farm and its UI over HTTP (loopback by default; a token is required on any other address)')
    .option('--listen <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', '8420')
    .option('--token <token>', 'access token (generated when listening off loopback)')
    .option('--static <dir>', 'built UI folder (default dist/renderer)')
    .option('--demo', 'start a simulated 3-GPU farm with a sample episode (throw-away data unless --data)')
    .action(async (_o: unknown, cmd: Command) => {
      await runServe(io, cmd.optsWithGlobals<ServeOptions>());
    });
}
