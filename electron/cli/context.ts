/** What every CLI command needs: the engine of the chosen data folder (here, or the one running its farm), and how to print. */
import type { Engine } from '../engine/engine.js';
import { terminalJson, terminalText } from './terminal-text.js';

export interface GlobalOptions {
  data?: string;
  /** A PostgreSQL store's URL (else SHOTFARM_DATABASE_URL, else the data folder's SQLite file). */
  database?: string;
  json?: boolean;
}

/**
 * What a command may do with the engine: call its contract. It is either an engine opened on the
 * data folder for this command, or — when an engine runs the folder's farm (the app, `serve`,
 * `run`) — that engine, reached through its control listener (engine-target.ts).
 */
export type EngineApi = Pick<Engine, 'call'>;

export interface RunOptions {
  /**
   * The command hands the engine paths of this terminal or writes files as this user (exports,
   * freeze, verify): it always runs on a connection of its own, never through a running farm.
   * Reading and writing files beside a running farm is safe (SQLite's own locking).
   */
  here?: boolean;
}

/**
 * How a command runs: on the engine chosen for it (closed after), with the global options. The
 * command talks to the engine through its contract (`engine.call`); a number it returns is the exit code.
 */
export type Run = (
  // biome-ignore lint/suspicious/noConfusingVoidType: a command returns its exit code, or nothing when it is 0.
  fn: (engine: EngineApi, g: GlobalOptions) => Promise<number | void>,
  o?: RunOptions,
) => Promise<void>;

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
  io.out(terminalJson(value));
}

/**
 * Where every command prints (main.ts wraps the process's or a test's): whatever a server, a file
 * or a person put in a line, nothing in it acts on the terminal (terminal-text.ts).
 */
export function terminalIo(io: Io): Io {
  return { out: (line) => io.out(terminalText(line)), err: (line) => io.err(terminalText(line)) };
}
