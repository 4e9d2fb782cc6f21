/**
 * The `shotfarm` command line. Each command is a thin call into the engine's contract; errors
 * come out as the contract's envelope message and a documented exit code (exit-codes.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { JOB_STATES, type JobState } from '../../shared/job-states.js';
import { PRIORITIES, type Priority } from '../../shared/priorities.js';
import { ShotfarmError, toErrorEnvelope } from '../../shared/errors.js';
import type { Engine } from '../engine/engine.js';
import { openEngine, printJson, processIo, type GlobalOptions, type Io } from './context.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { runFarm } from './farm-command.js';
import { registerServe } from './serve-command.js';
import { registerRelease } from './release-command.js';
import { registerHooks } from './hooks-command.js';
import { registerStorage } from './storage-command.js';
import { runHealth } from './health-command.js';
import { runImport } from './import-command.js';
import { formatTable, formatTime } from './table.js';

const GB = 1024 ** 3;

function parseTime(value: string, flag: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new ShotfarmError('bad_input', `${flag} must be a date or time such as 2026-12-01 or 2026-12-01T09:30:00Z.`);
  return t;
}

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function vramPairs(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of list(value)) {
    const [stage, gb] = pair.split('=');
    if (!stage || !gb || !(Number(gb) > 0)) throw new ShotfarmError('bad_input', `--vram takes STAGE=GB pairs, e.g. motion=20; got "${pair}".`);
    out[stage] = Number(gb);
  }
  return out;
}

export function buildProgram(io: Io, run: (fn: (engine: Engine, g: GlobalOptions) => Promise<number | void>) => Promise<void>): Command {
  const program = new Command('shotfarm')
    .description('Durable render jobs from shot lists, on your ComfyUI workstations.')
    .option('--data <dir>', 'data folder holding shotfarm.sqlite (default: the per-user app data folder, or $SHOTFARM_DATA)')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();

  program
    .command('import')
    .description('import a shot list (JSON or CSV): preview every row, then store the valid ones')
    .argument('<file>', 'shot_list.json or a CSV export (Kitsu, ShotGrid or Shotfarm columns)')
    .option('--dry-run', 'show the preview only; store nothing')
    .option('--project <name>', 'CSV: project when the file has no project column')
    .option('--episode <name>', 'CSV: episode when the file has no episode column')
    .option('--stage <name>', 'CSV: stage when the file has no stage column')
    .option('--template <name>', 'CSV: template when the file has no template column')
    .addOption(new Option('--priority <p>', 'CSV: priority when the file has no priority column').choices([...PRIORITIES]))
    .option('--param <name=column...>', 'CSV: feed template parameter NAME from COLUMN (repeatable)')
    .action((file: string, o) => run((e, g) => runImport(e, io, file, { ...o, json: g.json })));

  const templates = program.command('templates').description('register and list workflow templates');
  templates
    .command('add')
    .description('register template files (API-format workflow + named parameters); a changed file becomes a new version')
    .argument('<files...>')
    .action((files: string[]) =>
      run(async (e, g) => {
        for (const f of files) {
          const content = await readFile(resolve(f), 'utf8').catch((err: Error) => {
            throw new ShotfarmError('bad_input', `Cannot read ${f}: ${err.message}`);
          });
          const t = await e.call('templates.add', { content, fileName: basename(f) });
          if (g.json) printJson(io, t);
          else io.out(`Template ${t.name} v${t.version} (${t.stage}, ${t.vramGb} GB, parameters: ${t.parameters.map((p) => `${p.name}=${p.path}`).join(', ')})`);
        }
      }),
    );
  templates.command('list').description('list templates (latest versions)').action(() =>
    run(async (e, g) => {
      const rows = await e.call('templates.list', {});
      if (g.json) return printJson(io, rows);
      io.out(formatTable(['name', 'version', 'stage', 'vram_gb', 'timeout_s', 'parameters', 'hash'],
        rows.map((t) => [t.name, t.version, t.stage, t.vramGb, t.timeoutS, t.parameters.map((p) => p.name).join(','), t.hash.slice(0, 12)])));
    }),
  );

  program.command('status').description('jobs by state and the workstations').action(() =>
    run(async (e, g) => {
      const s = await e.call('farm.status', {});
      if (g.json) return printJson(io, s);
      io.out(JOB_STATES.map((st) => `${st} ${s.jobsByState[st]}`).join('  '));
      for (const i of s.instances) {
        io.out(`${i.name.padEnd(16)} ${i.adminState.padEnd(9)} ${i.health.padEnd(11)} ${i.url}  ${i.gpuName ?? ''}  running ${i.currentJobIds.length}`);
      }
      if (s.instances.length === 0) io.out('No workstations registered.');
    }),
  );

  const jobs = program.command('jobs').description('list jobs');
  jobs
    .command('list')
    .description('list jobs in queue order, with filters')
    .option('--state <states>', `comma-separated: ${JOB_STATES.join(', ')}`)
    .option('--project <name>')
    .option('--episode <name>')
    .option('--shot <name>')
    .option('--stage <name>')
    .addOption(new Option('--priority <p>').choices([...PRIORITIES]))
    .option('--search <text>', 'match shot, stage, template, reason or id')
    .option('--limit <n>', 'rows to show', '100')
    .action((o) =>
      run(async (e, g) => {
        const states = o.state ? list(o.state) : undefined;
        const bad = states?.filter((s) => !(JOB_STATES as readonly string[]).includes(s));
        if (bad?.length) throw new ShotfarmError('bad_input', `Unknown state ${bad.join(', ')}; use ${JOB_STATES.join(', ')}.`);
        const page = await e.call('jobs.list', {
          filter: { states: states as JobState[] | undefined, project: o.project, episode: o.episode, shot: o.shot, stage: o.stage,
            priority: o.priority as Priority | undefined, search: o.search },
          limit: Number(o.limit) || 100,
        });
        if (g.json) return printJson(io, page);
        io.out(formatTable(['id', 'project', 'episode', 'shot', 'stage', 'take', 'priority', 'state', 'attempts', 'updated', 'reason'],
          page.rows.map((j) => [j.id.slice(0, 8), j.project, j.episode, j.shot, j.stage, j.take, j.priority, j.state,
            `${j.attempts}/${j.maxAttempts}`, formatTime(j.updatedAt), j.stateReason ?? ''])));
        io.out(`${page.rows.length} of ${page.total} job(s).`);
      }),
    );

  program
    .command('bump')
    .description('change the priority of jobs, or move them to the top of their priority')
    .argument('<jobs...>', 'job ids or unique prefixes')
    .addOption(new Option('--priority <p>', 'new priority').choices([...PRIORITIES]))
    .option('--top', 'move ahead of every other job of the same priority')
    .action((refs: string[], o) =>
      run(async (e, g) => {
        if (!o.priority && !o.top) throw new ShotfarmError('bad_input', 'Say --priority rush|high|normal|low, --top, or both.');
        const { ids } = await e.call('jobs.resolveIds', { refs });
        let views = o.priority ? await e.call('jobs.bump', { ids, priority: o.priority as Priority }) : [];
        if (o.top) views = await e.call('jobs.moveToTop', { ids });
        if (g.json) return printJson(io, views);
        for (const j of views) io.out(`${j.id.slice(0, 8)} ${j.shot}/${j.stage} take ${j.take}: ${j.priority}, rank ${j.rank}`);
      }),
    );

  for (const [name, method, what] of [
    ['hold', 'jobs.hold', 'pause jobs (not dispatched until released)'],
    ['release', 'jobs.release', 'release held jobs'],
    ['cancel', 'jobs.cancel', 'cancel jobs (a running prompt is interrupted)'],
    ['retry', 'jobs.retry', 'retry failed, timed-out or cancelled jobs (same take, fresh attempts)'],
    ['new-take', 'jobs.newTake', 'render jobs again as a new take (new id, new seed)'],
  ] as const) {
    program.command(name).description(what).argument('<jobs...>', 'job ids or unique prefixes').action((refs: string[]) =>
      run(async (e, g) => {
        const { ids } = await e.call('jobs.resolveIds', { refs });
        const views = await e.call(method, { ids });
        if (g.json) return printJson(io, views);
        for (const j of views) io.out(`${j.id.slice(0, 8)} ${j.shot}/${j.stage} take ${j.take}: ${j.state}`);
      }),
    );
  }

  program
    .command('export')
    .description('write the run log (one row per attempt) or the asset ledger as CSV')
    .addArgument(new Command().createArgument('<kind>', 'runlog or ledger').choices(['runlog', 'ledger']))
    .option('--out <file>', 'CSV file to write (default: shotfarm-<kind>-<date>.csv here)')
    .option('--from <time>', 'only from this time (ISO date or date-time)')
    .option('--to <time>', 'only before this time')
    .option('--project <name>')
    .option('--episode <name>')
    .option('--outcome <outcome>', 'runlog: completed, failed, retry, timeout, lost, cancelled, requeued, running')
    .action((kind: 'runlog' | 'ledger', o) =>
      run(async (e, g) => {
        const path = resolve(o.out ?? `shotfarm-${kind}-${new Date().toISOString().slice(0, 10)}.csv`);
        const result = await e.call(kind === 'runlog' ? 'export.runlog' : 'export.ledger', {
          path,
          from: o.from ? parseTime(o.from, '--from') : undefined,
          to: o.to ? parseTime(o.to, '--to') : undefined,
          project: o.project, episode: o.episode, outcome: o.outcome,
        });
        if (g.json) return printJson(io, result);
        io.out(`Wrote ${result.rows} row(s), ${result.bytes} bytes, to ${result.path}`);
      }),
    );

  const workers = program.command('workers').description('manage workstations (one ComfyUI server each)');
  workers
    .command('add')
    .description('register a ComfyUI server')
    .argument('<url>', 'e.g. http://gpu-01:8188')
    .requiredOption('--name <name>', 'a short name, e.g. gpu-01')
    .option('--tags <tags>', 'capability tags, comma-separated (e.g. img2img,i2v_video)')
    .option('--concurrency <n>', 'prompts at once (default 1)')
    .option('--vram <stage=GB,...>', 'VRAM requirement overrides for jobs on this workstation')
    .action((url: string, o) =>
      run(async (e, g) => {
        const v = await e.call('instances.add', {
          name: o.name, url, tags: o.tags ? list(o.tags) : undefined,
          maxConcurrency: o.concurrency ? Number(o.concurrency) : undefined, vramOverrides: o.vram ? vramPairs(o.vram) : undefined,
        });
        if (g.json) return printJson(io, v);
        io.out(`Added ${v.name} at ${v.url}${v.tags.length ? ` [${v.tags.join(', ')}]` : ''}. Check it with: shotfarm health`);
      }),
    );
  workers.command('list').description('list workstations').action(() =>
    run(async (e, g) => {
      const rows = await e.call('instances.list', {});
      if (g.json) return printJson(io, rows);
      io.out(formatTable(['name', 'url', 'state', 'health', 'gpu', 'vram_gb', 'tags', 'concurrency', 'last_probe'],
        rows.map((i) => [i.name, i.url, i.adminState, i.health, i.gpuName ?? '', i.vram ? (i.vram.totalBytes / GB).toFixed(0) : '',
          i.tags.join(','), i.maxConcurrency, formatTime(i.lastProbeAt)])));
    }),
  );
  workers.command('remove').description('unregister a workstation').argument('<name>').action((name: string) =>
    run(async (e) => {
      await e.call('instances.remove', { id: name });
      io.out(`Removed ${name}.`);
    }),
  );
  for (const [name, state, what] of [
    ['drain', 'draining', 'finish the current prompt, take no new one'],
    ['disable', 'disabled', 'take no work at all'],
    ['enable', 'active', 'take work again'],
  ] as const) {
    workers.command(name).description(what).argument('<name>').action((ref: string) =>
      run(async (e, g) => {
        const v = await e.call('instances.setAdminState', { id: ref, adminState: state });
        if (g.json) return printJson(io, v);
        io.out(`${v.name} is now ${v.adminState}.`);
      }),
    );
  }

  program
    .command('run')
    .description('run the farm here: dispatch queued jobs to the workstations and follow them (Ctrl+C to stop following)')
    .option('--until-idle', 'exit once nothing is queued, retrying or running')
    .action((o) => run((e, g) => runFarm(e, io, { untilIdle: Boolean(o.untilIdle), json: Boolean(g.json) })));

  program
    .command('health')
    .description('probe every workstation now; exit 0 when at least one is healthy')
    .option('--timeout <ms>', 'per-request timeout', '2000')
    .action((o) => run((e, g) => runHealth(e, io, Number(o.timeout) || 2000, Boolean(g.json))));

  // serve opens its own engine and runs until Ctrl+C, so it does not go through run().
  registerServe(program, io);
  registerRelease(program, io, run);
  registerHooks(program, io, run);
  registerStorage(program, io, run);
  return program;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  let program: Command;
  const run = async (fn: (engine: Engine, g: GlobalOptions) => Promise<number | void>): Promise<void> => {
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
