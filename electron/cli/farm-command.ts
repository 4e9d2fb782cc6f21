/**
 * `shotfarm run [--until-idle]`: runs the farm in this terminal — probes the workstations,
 * reconciles attempts left open, dispatches queued jobs — printing each job change. Ctrl+C leaves
 * running prompts on the workstations (the next start picks them up). `--until-idle` exits once
 * nothing more can happen by itself: every job finished or held, or waiting for something no
 * registered workstation offers (then it says what, and exits with EXIT.cannotRun).
 */
import type { Engine } from '../engine/engine.js';
import type { FarmProgress } from '../engine/scheduler/farm-progress.js';
import type { Io } from './context.js';
import { EXIT } from './exit-codes.js';

/** While the farm waits by itself (busy or offline workstations), say why at most this often. */
const WAITING_NOTE_MS = 30_000;
/** Job changes arrive in bursts; the idle check runs once per burst. */
const CHECK_DEBOUNCE_MS = 50;
/** Also checked this often, for changes that send no job event (a workstation coming back). */
const CHECK_EVERY_MS = 2_000;

const clock = (): string => new Date().toTimeString().slice(0, 8);

export async function runFarm(engine: Engine, io: Io, o: { untilIdle?: boolean; json?: boolean }): Promise<number> {
  const scheduler = engine.startScheduler();
  const lastHealth = new Map<string, string>();
  const off = [
    engine.events.on('job.changed', ({ job }) => {
      if (o.json) io.out(JSON.stringify({ event: 'job.changed', job }));
      else io.out(`${clock()}  ${job.state.padEnd(16)} ${job.project}/${job.episode}/${job.shot} ${job.stage} take ${job.take}${job.stateReason ? `  ${job.stateReason}` : ''}`);
    }),
    engine.events.on('instance.changed', ({ instance }) => {
      // Cards are re-published every few seconds; only a change of health or error is news here.
      const said = `${instance.health} ${instance.lastError ?? ''}`;
      if (lastHealth.get(instance.id) === said) return;
      lastHealth.set(instance.id, said);
      if (!o.json) io.out(`${clock()}  workstation ${instance.name} is ${instance.health}${instance.lastError ? ` (${instance.lastError})` : ''}`);
    }),
  ];
  io.out(`Farm running on ${engine.dbFile}. Ctrl+C stops following; prompts keep running on the workstations.`);

  let final: FarmProgress | null = null;
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (!o.untilIdle) return;
    let pending: NodeJS.Timeout | null = null;
    let lastNote = { text: '', at: 0 };
    const check = (): void => {
      pending = null;
      const p = scheduler.progress();
      if (!p.canProgress) {
        final = p;
        return stop();
      }
      const note = p.waiting.map((w) => `${w.count} ${w.reason}`).join('; ');
      if (note && (note !== lastNote.text || Date.now() - lastNote.at >= WAITING_NOTE_MS)) {
        lastNote = { text: note, at: Date.now() };
        if (!o.json) io.out(`${clock()}  waiting: ${note}`);
      }
    };
    const soon = (): void => {
      pending ??= setTimeout(check, CHECK_DEBOUNCE_MS);
    };
    off.push(engine.events.on('job.changed', soon), engine.events.on('jobs.bulkChanged', soon), engine.events.on('instance.changed', soon));
    const t = setInterval(soon, CHECK_EVERY_MS);
    off.push(() => {
      clearInterval(t);
      if (pending) clearTimeout(pending);
    });
    soon();
  });
  for (const f of off) f();
  const s = await engine.call('farm.status', {});
  const stuck = (final as FarmProgress | null)?.stuck ?? [];
  if (o.json) {
    io.out(JSON.stringify({ event: 'stopped', jobsByState: s.jobsByState, cannotRun: stuck }));
  } else {
    io.out(`Stopped. ${Object.entries(s.jobsByState).filter(([, n]) => n > 0).map(([st, n]) => `${st} ${n}`).join(', ') || 'no jobs'}.`);
    if (stuck.length) {
      io.out(`${stuck.reduce((n, g) => n + g.count, 0)} job(s) cannot run on this farm as it is:`);
      for (const g of stuck) io.out(`  ${String(g.count).padStart(6)}  ${g.reason}`);
    }
  }
  return stuck.length ? EXIT.cannotRun : EXIT.ok;
}
