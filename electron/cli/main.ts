/**
 * The `shotfarm` command line. Each command group registers itself (register* in its own module);
 * each command is a thin call into the engine's contract (`engine.call`); errors come out as the
 * contract's envelope message and a documented exit code (exit-codes.ts).
 */
import { Command, CommanderError } from 'commander';
import { ShotfarmError, toErrorEnvelope } from '../../shared/errors.js';
import { openEngine, processIo, type GlobalOptions, type Io, type Run } from './context.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { registerDatabase } from './db-command.js';
import { registerExport } from './export-command.js';
import { registerRun, registerStatus } from './farm-command.js';
import { registerFarm } from './farm-state-command.js';
import { registerHealth } from './health-command.js';
import { registerHooks } from './hooks-command.js';
import { registerImport } from './import-command.js';
import { registerJobs } from './jobs-command.js';
import { registerRelease } from './release-command.js';
import { registerServe } from './serve-command.js';
import { registerSettings } from './settings-command.js';
import { registerStorage } from './storage-command.js';
import { registerTemplates } from './templates-command.js';
import { registerUsers } from './users-command.js';
import { registerWorkers } from './workers-command.js';

/** The command groups, in the order `--help` lists them. */
const GROUPS: ((program: Command, io: Io, run: Run) => void)[] = [
  registerImport, registerTemplates, registerStatus, registerJobs, registerExport, registerWorkers, registerRun, registerHealth,
  // serve opens its own engine and runs until Ctrl+C, so it does not go through run().
  (program, io) => registerServe(program, io),
  registerRelease, registerHooks, registerStorage, registerSettings, registerFarm, registerUsers, registerDatabase,
];

export function buildProgram(io: Io, run: Run): Command {
  const program = new Command('shotfarm')
    .description('Durable render jobs from shot lists, on your ComfyUI workstations.')
    .option('--data <dir>', 'data folder holding shotfarm.sqlite (default: the per-user app data folder, or $SHOTFARM_DATA)')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();
  for (const register of GROUPS) register(program, io, run);
  return program;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  let program: Command;
  const run: Run = async (fn) => {
    const g = program.opts<GlobalOptions>();
    const engine = openEngine(g);
    try {
      const code = await fn(engine, g);
      exitCode = typeof code === 'number' ? code : EXIT.ok;
    } finally {
      await engine.close();
    }
  };
  program = buildProgram(io, run);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const env = toErrorEnvelope(err);
    io.err(`shotfarm: ${env.message}`);
    return err instanceof ShotfarmError ? exitCodeFor(env.code) : EXIT.failure;
  }
  return exitCode;
}
