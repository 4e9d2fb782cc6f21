/**
 * The `shotfarm` command line. Each command group registers itself (register* in its own module);
 * each command is a thin call into the engine's contract (`engine.call`); errors come out as the
 * contract's envelope message and a documented exit code (exit-codes.ts).
 */
import { Command, CommanderError } from 'commander';
import { ShotfarmError, toErrorEnvelope } from '../../shared/errors.js';
import { defaultDataDir } from '../engine/data-dir.js';
import { processIo, terminalIo, type GlobalOptions, type Io, type Run } from './context.js';
import { databaseUrlOf } from './database-option.js';
import { openTarget } from './engine-target.js';
import { EXIT, exitCodeFor, UsageError } from './exit-codes.js';
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
const GROUPS: ((program: Command, io: Io, run: Run, setExit: (code: number) => void) => void)[] = [
  registerImport,
  registerTemplates,
  registerStatus,
  registerJobs,
  registerExport,
  registerWorkers,
  // run and serve open their own engine (they run the farm) until stopped, so they do not go through run().
  (program, io, _run, setExit) => registerRun(program, io, setExit),
  registerHealth,
  (program, io) => registerServe(program, io),
  registerRelease,
  registerHooks,
  registerStorage,
  registerSettings,
  registerFarm,
  registerUsers,
  registerDatabase,
];

export function buildProgram(io: Io, run: Run, setExit: (code: number) => void = () => undefined): Command {
  const program = new Command('shotfarm')
    .description('Durable render jobs from shot lists, on your ComfyUI workstations.')
    .option(
      '--data <dir>',
      'data folder holding shotfarm.sqlite (default: the per-user app data folder, or $SHOTFARM_DATA)',
    )
    .option(
      '--database <url>',
      "a PostgreSQL database as the farm's store, postgres://user@host:5432/db (default: $SHOTFARM_DATABASE_URL, else the data folder's shotfarm.sqlite)",
    )
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();
  for (const register of GROUPS) register(program, io, run, setExit);
  return program;
}

export async function main(argv: string[], to: Io = processIo): Promise<number> {
  const io = terminalIo(to);
  let exitCode: number = EXIT.ok;
  let program: Command;
  const run: Run = async (fn, o = {}) => {
    const g = program.opts<GlobalOptions>();
    const target = await openTarget(g.data ?? defaultDataDir(process.env), {
      here: o.here === true,
      databaseUrl: databaseUrlOf(g.database),
      warn: (m) => io.err(`shotfarm: ${m}`),
    });
    try {
      const code = await fn(target.api, g);
      exitCode = typeof code === 'number' ? code : EXIT.ok;
    } finally {
      await target.close();
    }
  };
  program = buildProgram(io, run, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof UsageError) {
      io.err(`shotfarm: ${err.message}`);
      return EXIT.usage;
    }
    const env = toErrorEnvelope(err);
    io.err(`shotfarm: ${env.message}`);
    return err instanceof ShotfarmError ? exitCodeFor(env.code, env.details) : EXIT.failure;
  }
  return exitCode;
}
