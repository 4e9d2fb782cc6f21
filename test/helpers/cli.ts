/** Runs the `shotfarm` CLI in-process and captures what it prints and its exit code. */
import { main } from '../../electron/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** The CLI with exactly these arguments (a test that passes its own `--data` or `--database`). */
export async function runCliArgs(args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The CLI on a data folder. */
export function runCli(dataDir: string, ...args: string[]): Promise<CliRun> {
  return runCliArgs(['--data', dataDir, ...args]);
}
