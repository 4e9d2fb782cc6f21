/** Runs the `shotfarm` CLI in-process on a data folder and captures what it prints and its exit code. */
import { main } from '../../electron/cli/main.js';

export async function runCli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['--data', dataDir, ...args], { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
