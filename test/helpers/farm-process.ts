/**
 * The three programs that run a farm, each in a process of its own on a data folder: the desktop
 * app's engine process (electron/main/engine-process.ts, forked with an IPC channel as the app's
 * utility process would be), `shotfarm serve` and `shotfarm run` (the real bin/shotfarm.js). For
 * tests of what only a real process shows: the farm's lock, signals, exit codes, staying up.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../electron/engine/engine.js';
import { REPO } from './engine.js';
import { FIXTURE_TEMPLATES } from './farm.js';

export type FarmKind = 'desktop' | 'serve' | 'run';
export const FARM_KINDS: readonly FarmKind[] = ['desktop', 'serve', 'run'];

export interface FarmProcess {
  kind: FarmKind;
  child: ChildProcess;
  /** Everything it printed (stdout and stderr), for assertions and failure messages. */
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves once it runs the farm (serve printed its URL, run its first line, the engine said ready); rejects if it exits first. */
  ready: Promise<void>;
  /** serve's `http://127.0.0.1:PORT`, once ready. */
  url: () => string | null;
  /** The desktop engine's `fatal` message, if it sent one. */
  fatal: () => { code: string; message: string; details?: Record<string, unknown> } | null;
  /** Waits for a line of output matching `re` (a job change `run` prints…). */
  waitFor: (re: RegExp, what: string, timeoutMs?: number) => Promise<string>;
  /** Sends `signal` and waits for the exit; its code. */
  stop: (signal: NodeJS.Signals) => Promise<number | null>;
}

const BIN = join(REPO, 'bin/shotfarm.js');
const ENGINE_ENTRY = join(REPO, 'electron/main/engine-process.ts');
const READY: Record<Exclude<FarmKind, 'desktop'>, RegExp> = {
  serve: /Open (http:\/\/127\.0\.0\.1:\d+)\//,
  run: /^Farm running on /m,
};

/** `p`, or a rejection naming `what` after `ms`; the timer never outlives the answer (nor keeps the process up). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function startFarmProcess(
  kind: FarmKind,
  dataDir: string,
  o: { staticDir?: string; args?: string[] } = {},
): FarmProcess {
  const env = { ...process.env, SHOTFARM_DATA: dataDir };
  const child =
    kind === 'desktop'
      ? fork(ENGINE_ENTRY, ['--data', dataDir], {
          execArgv: ['--import', 'tsx'],
          serialization: 'advanced',
          stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
          env,
          cwd: REPO,
        })
      : spawn(
          process.execPath,
          [
            BIN,
            '--data',
            dataDir,
            kind,
            ...(kind === 'serve' ? ['--port', '0', '--static', o.staticDir ?? dataDir] : []),
            ...(o.args ?? []),
          ],
          { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env },
        );
  let out = '';
  let fatal: ReturnType<FarmProcess['fatal']> = null;
  const listeners = new Set<() => void>();
  const take = (d: Buffer): void => {
    out += d.toString();
    for (const l of [...listeners]) l();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  child.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const exitedEarly = (what: string) =>
    exited.then((code): never => {
      throw new Error(`${kind} exited (${code}) before ${what}:\n${out}`);
    });
  const waitFor = (re: RegExp, what: string, timeoutMs = 30_000): Promise<string> => {
    let check = (): void => undefined;
    const found = new Promise<string>((resolve) => {
      check = () => {
        const m = re.exec(out);
        if (m) resolve(m[1] ?? m[0]);
      };
      listeners.add(check);
      check();
    });
    return within(Promise.race([found, exitedEarly(what)]), timeoutMs, `${what} (${kind})`).finally(() =>
      listeners.delete(check),
    );
  };
  child.on('message', (m) => {
    const msg = m as { fatal?: { code: string; message: string; details?: Record<string, unknown> } };
    if (msg.fatal) fatal = msg.fatal;
  });
  let url: string | null = null;
  const ready =
    kind === 'desktop'
      ? within(
          Promise.race([
            new Promise<void>((resolve) =>
              child.on('message', (m) => void ((m as { ready?: boolean }).ready && resolve())),
            ),
            exitedEarly('it was ready'),
          ]),
          60_000,
          'the desktop engine to be ready',
        )
      : waitFor(READY[kind], 'running the farm', 60_000).then((u) => void (url = kind === 'serve' ? u : null));
  ready.catch(() => undefined); // read by the test when it cares
  return {
    kind,
    child,
    exited,
    ready,
    waitFor,
    output: () => out,
    url: () => url,
    fatal: () => fatal,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Readies a data folder for a farm process: the txt2img template and one workstation, sim-0 at `url` (opened and closed here, before any farm runs). */
export async function seedDataFolder(dir: string, url: string, settings: Record<string, number> = {}): Promise<void> {
  const setup = new Engine({ dataDir: dir, log: () => undefined });
  try {
    await setup.call('templates.add', {
      content: readFileSync(join(FIXTURE_TEMPLATES, 'txt2img.json'), 'utf8'),
      fileName: 'txt2img.json',
    });
    await setup.call('instances.add', { name: 'sim-0', url });
    for (const [key, value] of Object.entries(settings)) await setup.call('settings.set', { key, value });
  } finally {
    await setup.close();
  }
}
