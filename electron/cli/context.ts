/** What every CLI command needs: the engine on the chosen data folder, and how to print. */
import { Engine } from '../engine/engine.js';
import { defaultDataDir } from '../engine/data-dir.js';

export interface GlobalOptions {
  data?: string;
  json?: boolean;
}

export function openEngine(opts: GlobalOptions): Engine {
  return new Engine({ dataDir: opts.data ?? defaultDataDir() });
}

/**
 * How a command runs: on an engine opened for it (and closed after), with the global options. The
 * command talks to the engine through its contract (`engine.call`); a number it returns is the exit code.
 */
export type Run = (fn: (engine: Engine, g: GlobalOptions) => Promise<number | void>) => Promise<void>;

/** Where commands print; tests pass their own to capture output without touching the process. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const processIo: Io = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}
