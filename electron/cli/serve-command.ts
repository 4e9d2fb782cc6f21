/**
 * `shotfarm serve`: the headless host — the engine with its scheduler, the API over HTTP/WebSocket
 * and the built UI, until Ctrl+C. `--demo` adds a simulated three-GPU farm, a first episode and the demo
 * producer that keeps adding shots (on a throw-away data folder unless --data is given). A taken
 * port exits with the conflict code (5) and says which port and address.
 */
import type { Command } from 'commander';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { defaultDataDir } from '../engine/data-dir.js';
import { databaseUrlOf } from './database-option.js';
import { Engine } from '../engine/engine.js';
import { DEMO_LABEL, DEMO_SAMPLES_DIR, startDemoFarm, type DemoFarm } from '../server/demo-farm.js';
import { isLoopbackHost } from '../server/access.js';
import { DEFAULT_STATIC_DIR, startServer } from '../server/server.js';
import { decimalValue } from './args.js';
import type { Io } from './context.js';
import { untilStopped } from './stop-signals.js';

interface ServeOptions {
  listen: string;
  port: string;
  demo?: boolean;
  token?: string;
  static?: string;
  data?: string;
  database?: string;
  tlsCert?: string;
  tlsKey?: string;
  inputs?: string;
}

/** A listen failure in words: which address is taken and what to do about it. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== 'EADDRINUSE') return err;
  return new ShotfarmError(
    'conflict',
    `port ${port} on ${host} is already in use (another \`shotfarm serve\`, or another program). ` +
      'Pick another with --port N (--port 0 takes any free port), or stop the other serve.',
  );
}

/** The certificate and key files, read and checked to belong together before anything listens. */
export function readTls(
  certFile: string | undefined,
  keyFile: string | undefined,
): { cert: Buffer; key: Buffer } | undefined {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new ShotfarmError('bad_input', 'HTTPS needs both --tls-cert FILE and --tls-key FILE.');
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ShotfarmError(
        'bad_input',
        `--${what} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
      );
    }
  };
  const tls = { cert: read(certFile, 'tls-cert'), key: read(keyFile, 'tls-key') };
  try {
    createSecureContext(tls);
  } catch (err) {
    const why = (err as Error).message;
    const hint = /mismatch/i.test(why)
      ? 'the key does not belong to the certificate'
      : 'they are not a PEM certificate and its private key';
    throw new ShotfarmError(
      'bad_input',
      `--tls-cert ${certFile} and --tls-key ${keyFile} cannot be used: ${hint} (${why}).`,
    );
  }
  return tls;
}

/** The folder `--inputs` names: an existing folder (the server refuses one inside the farm's own places). */
function checkInputsFolder(dir: string): string {
  const abs = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new ShotfarmError('bad_input', `--inputs ${dir} is not an existing folder.`);
  return abs;
}

export async function runServe(io: Io, o: ServeOptions, stop?: Promise<void>): Promise<void> {
  const port = decimalValue(o.port, '--port', { integer: true, min: 0, max: 65535 }, '8420');
  const tempDemo = o.demo && !o.data ? mkdtempSync(join(tmpdir(), 'shotfarm-demo-')) : null;
  const dataDir = o.data ?? tempDemo ?? defaultDataDir(process.env);
  const staticDir = o.static ?? DEFAULT_STATIC_DIR;
  const tls = readTls(o.tlsCert, o.tlsKey);
  const inputsDir = o.inputs === undefined ? undefined : checkInputsFolder(o.inputs);
  if (!existsSync(join(staticDir, 'index.html')))
    io.err(`shotfarm: no built UI in ${staticDir}; run \`npm run build:renderer\` first (the API still works).`);

  const log = (m: string): void => io.err(`shotfarm: ${m}`);
  // Takes the data folder's farm first: with another engine running it, nothing is started (exit 10).
  const engine = new Engine({ dataDir, databaseUrl: databaseUrlOf(o.database), log, kind: 'serve', env: process.env });
  const signals = stop
    ? null
    : untilStopped(() => {
        io.out('Leaving the downloads in flight for the next start.');
        engine.scheduler?.hurry();
      });
  let demo: DemoFarm | null = null;
  try {
    // Listen first: a taken port is reported before any simulator starts.
    const server = await startServer({
      engine,
      host: o.listen,
      port,
      token: o.token,
      staticDir,
      tls,
      log,
      demoLabel: o.demo ? DEMO_LABEL : undefined,
      importBaseDir: inputsDir ?? (o.demo ? DEMO_SAMPLES_DIR : undefined),
    }).catch((err: unknown) => {
      throw listenError(err, o.listen, port);
    });
    try {
      if (o.demo) demo = await startDemoFarm(engine, { log });
      engine.startScheduler();
      // A wildcard listen address is not something to type into a browser: show this machine's name.
      const shown = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])/, `//${hostname()}`);
      engine.announceServeUrl(shown);
      io.out(`Shotfarm${o.demo ? ' (demo farm)' : ''} serving ${dataDir}`);
      if (engine.peopleDefined()) {
        // Each person has their own token (shotfarm users): the shared one is not accepted, so it is not printed.
        io.out(
          `Open ${shown}/ and sign in with your personal token (people are defined: scripts send "Authorization: Bearer <token>")`,
        );
      } else {
        io.out(`Open ${shown}/${server.token ? `?token=${server.token}` : ''}`);
        if (server.token) io.out(`Access token: ${server.token} (scripts send it as "Authorization: Bearer …")`);
      }
      if (!tls && !isLoopbackHost(o.listen)) {
        io.err(
          `shotfarm: warning: serving http on ${o.listen} without TLS: access tokens travel in clear text on the network. Use --tls-cert/--tls-key or a reverse proxy with HTTPS (docs/studio-farm.md → HTTPS).`,
        );
      }
      io.out('Press Ctrl+C to stop.');
      await (stop ?? signals?.stopped);
      demo?.producer?.close(); // no batch may start against a closing engine
      const collecting = engine.scheduler?.collecting() ?? 0;
      if (collecting > 0)
        io.out(
          `Stopping: ${collecting} download(s) in flight may finish first (Ctrl+C again leaves them for the next start).`,
        );
      // The farm stops first (gracefully), while the UI and the API still answer.
      await engine.stopScheduler();
    } finally {
      await server.close();
    }
  } finally {
    demo?.producer?.close();
    await engine.close().catch(() => undefined);
    signals?.dispose();
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
    .option('--tls-cert <file>', 'serve https/wss with this PEM certificate (chain)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option(
      '--inputs <dir>',
      'a folder of shot-list input files that imports may read (default: none — inputs are sent with the list)',
    )
    .option('--demo', 'start a simulated 3-GPU farm that keeps getting new demo shots (throw-away data unless --data)')
    .action(async (_o: unknown, cmd: Command) => {
      await runServe(io, cmd.optsWithGlobals<ServeOptions>());
    });
}
