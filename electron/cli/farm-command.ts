/**
 * `shotfarm status` (jobs by state, the workstations) and `shotfarm run [--until-idle]`: runs the
 * farm in this terminal — probes the workstations, reconciles attempts left open, dispatches queued
 * jobs — printing each job change, until stopped (Ctrl+C, SIGTERM). Stopping leaves running prompts
 * on the workstations (the next start picks them up) and lets downloads in flight finish, for a
 * bounded time; a second Ctrl+C leaves them for the next start at once. `--until-idle` exits once
 * nothing more can happen by itself: every job finished or held, or waiting for something no
 * registered workstation offers (then it says what, and exits with EXIT.cannotRun). It takes the
 * data folder's farm: with another engine running it, it refuses (EXIT.farmHeld).
 */
import { burstWords, forecastLine, type ForecastView } from '../../shared/forecast.js';
import { spendLines } from './cloud-command.js';
import type { Command } from 'commander';
import { JOB_STATES } from '../../shared/job-states.js';
import { lostContactWords } from '../../shared/live-attempt.js';
import { defaultDataDir } from '../engine/data-dir.js';
import { databaseUrlOf } from './database-option.js';
import { Engine } from '../engine/engine.js';
import type { FarmProgress } from '../engine/scheduler/farm-progress.js';
import type { Scheduler } from '../engine/scheduler/scheduler.js';
import { printJson, type GlobalOptions, type Io, type Run } from './context.js';
import { EXIT } from './exit-codes.js';
import { farmStateLine, storageHoldLine } from './farm-state-command.js';
import { untilStopped } from './stop-signals.js';
import { terminalJson } from './terminal-text.js';

/** While the farm waits by itself (busy or offline workstations), say why at most this often. */
const WAITING_NOTE_MS = 30_000;
/** Job changes arrive in bursts; the idle check runs once per burst. */
const CHECK_DEBOUNCE_MS = 50;
/** Also checked this often, for changes that send no job event (a workstation coming back). */
const CHECK_EVERY_MS = 2_000;

const clock = (): string => new Date().toTimeString().slice(0, 8);

/** Prints each job change, and a workstation's line only when its health or error changes. Returns the unsubscribes. */
function printChanges(engine: Engine, io: Io, json: boolean): (() => void)[] {
  const lastHealth = new Map<string, string>();
  return [
    engine.events.on('job.changed', ({ job }) => {
      if (json) io.out(terminalJson({ event: 'job.changed', job }, 0));
      else {
        const why = job.contact ? lostContactWords(job.contact, Date.now()) : job.stateReason;
        io.out(
          `${clock()}  ${job.state.padEnd(16)} ${job.project}/${job.episode}/${job.shot} ${job.stage} take ${job.take}${why ? `  ${why}` : ''}`,
        );
      }
    }),
    engine.events.on('instance.changed', ({ instance }) => {
      // Cards are re-published every few seconds; only a change of health or error is news here.
      const said = `${instance.health} ${instance.lastError ?? ''}`;
      if (lastHealth.get(instance.id) === said) return;
      lastHealth.set(instance.id, said);
      if (!json)
        io.out(
          `${clock()}  workstation ${instance.name} is ${instance.health}${instance.lastError ? ` (${instance.lastError})` : ''}`,
        );
    }),
  ];
}

/**
 * Checks after every burst of changes (and every few seconds) whether the farm can still move by
 * itself; calls `done` with the verdict when it cannot, saying meanwhile what it waits for.
 */
function watchUntilIdle(
  engine: Engine,
  scheduler: Scheduler,
  io: Io,
  json: boolean,
  done: (p: FarmProgress) => void,
): () => void {
  let pending: NodeJS.Timeout | null = null;
  let lastNote = { text: '', at: 0 };
  const check = (): void => {
    pending = null;
    const p = scheduler.progress();
    if (!p.canProgress) return done(p);
    const note = p.waiting.map((w) => `${w.count} ${w.reason}`).join('; ');
    if (note && (note !== lastNote.text || Date.now() - lastNote.at >= WAITING_NOTE_MS)) {
      lastNote = { text: note, at: Date.now() };
      if (!json) io.out(`${clock()}  waiting: ${note}`);
    }
  };
  const soon = (): void => {
    pending ??= setTimeout(check, CHECK_DEBOUNCE_MS);
  };
  const offs = [
    engine.events.on('job.changed', soon),
    engine.events.on('jobs.bulkChanged', soon),
    engine.events.on('instance.changed', soon),
  ];
  const t = setInterval(soon, CHECK_EVERY_MS);
  soon();
  return () => {
    for (const off of offs) off();
    clearInterval(t);
    if (pending) clearTimeout(pending);
  };
}

/** Runs the farm of the data folder in this process until stopped; the exit code. */
export async function runFarm(
  dataDir: string,
  io: Io,
  o: { untilIdle?: boolean; json?: boolean; databaseUrl?: string },
): Promise<number> {
  // The engine reads no environment of its own: this host passes it in (engine/engine-env.ts).
  const engine = new Engine({ dataDir, databaseUrl: o.databaseUrl, kind: 'run', env: process.env });
  const { stopped, stop, dispose } = untilStopped(() => {
    io.out('Leaving the downloads in flight for the next start.');
    engine.scheduler?.hurry();
  });
  try {
    return await runUntilStopped(engine, io, o, stopped, stop);
  } finally {
    await engine.close();
    dispose();
  }
}

async function runUntilStopped(
  engine: Engine,
  io: Io,
  o: { untilIdle?: boolean; json?: boolean },
  stopped: Promise<void>,
  stop: () => void,
): Promise<number> {
  const json = Boolean(o.json);
  const scheduler = engine.startScheduler();
  const printing = printChanges(engine, io, json);
  io.out(`Farm running on ${engine.dbFile}. Ctrl+C stops following; prompts keep running on the workstations.`);
  const { farmState } = await engine.call('farm.status', {});
  if (farmState.state !== 'running') io.out(farmStateLine(farmState));
  let final: FarmProgress | null = null;
  const watching = o.untilIdle
    ? [
        watchUntilIdle(engine, scheduler, io, json, (p) => {
          final = p;
          stop();
        }),
      ]
    : [];
  await stopped;
  for (const f of watching) f();
  const collecting = scheduler.collecting();
  if (collecting > 0 && !json) {
    io.out(
      `Stopping: ${collecting} download(s) in flight may finish first (at most ${Math.round(scheduler.stopGraceMs / 1000)} s; Ctrl+C again leaves them for the next start).`,
    );
  }
  await engine.stopScheduler();
  // Followed until the scheduler has closed: it publishes what was stored before (a completion
  // merged into the tick the idle check stopped in, downloads finished in the grace) — a job the
  // summary counts as completed always has its line above it.
  for (const f of printing) f();
  const s = await engine.call('farm.status', {});
  const stuck = (final as FarmProgress | null)?.stuck ?? [];
  if (json) {
    io.out(terminalJson({ event: 'stopped', jobsByState: s.jobsByState, cannotRun: stuck }, 0));
  } else {
    io.out(
      `Stopped. ${
        Object.entries(s.jobsByState)
          .filter(([, n]) => n > 0)
          .map(([st, n]) => `${st} ${n}`)
          .join(', ') || 'no jobs'
      }.`,
    );
    if (stuck.length) {
      io.out(`${stuck.reduce((n, g) => n + g.count, 0)} job(s) cannot run on this farm as it is:`);
      for (const g of stuck) io.out(`  ${String(g.count).padStart(6)}  ${g.reason}`);
    }
  }
  return stuck.length ? EXIT.cannotRun : EXIT.ok;
}

/** The episodes with work left or a due time, late ones first (at most 20 lines, then a count). */
export function forecastLines(f: ForecastView, now: number): string[] {
  const shown = f.groups
    .filter((g) => g.kind === 'episode' && (g.total > g.done + g.other || g.dueAt !== null))
    .sort((a, b) => Number(b.late) - Number(a.late) || (a.key < b.key ? -1 : 1));
  if (shown.length === 0) return [];
  const cloud = f.burst ? `; ${burstWords(f.burst, now)}` : '';
  const out = [`Forecast (${f.slots} GPU slot${f.slots === 1 ? '' : 's'}${cloud}${f.note ? `; ${f.note}` : ''}):`];
  for (const g of shown.slice(0, 20)) out.push(`  ${forecastLine(g, now)}`);
  if (shown.length > 20)
    out.push(`  … and ${shown.length - 20} more episodes (shotfarm status --json, or the Queue's Forecast panel)`);
  return out;
}

export function registerStatus(program: Command, io: Io, run: Run): void {
  program
    .command('status')
    .description('jobs by state and the workstations')
    .action(() =>
      run(async (e, g) => {
        const s = await e.call('farm.status', {});
        if (g.json) return printJson(io, s);
        io.out(farmStateLine(s.farmState));
        if (s.storageHold) io.out(storageHoldLine(s.storageHold));
        // blocked: queued jobs no registered workstation could ever take (`jobs why JOB` says why).
        io.out(`${JOB_STATES.map((st) => `${st} ${s.jobsByState[st]}`).join('  ')}  (blocked ${s.blocked})`);
        for (const i of s.instances) {
          io.out(
            `${i.name.padEnd(16)} ${i.adminState.padEnd(9)} ${i.health.padEnd(11)} ${i.url}  ${i.gpuName ?? ''}  running ${i.currentJobIds.length}`,
          );
        }
        if (s.instances.length === 0) io.out('No workstations registered.');
        for (const line of await spendLines(e)) io.out(line);
        for (const line of forecastLines(await e.call('forecast.get', {}), Date.now())) io.out(line);
      }),
    );
}

export function registerRun(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('run')
    .description(
      'run the farm here: dispatch queued jobs to the workstations and follow them (Ctrl+C to stop following)',
    )
    .option('--until-idle', 'exit once nothing is queued, retrying or running')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & { untilIdle?: boolean }>();
      setExit(
        await runFarm(o.data ?? defaultDataDir(process.env), io, {
          untilIdle: Boolean(o.untilIdle),
          json: Boolean(o.json),
          databaseUrl: databaseUrlOf(o.database),
        }),
      );
    });
}
