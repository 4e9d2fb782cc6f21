/**
 * `shotfarm run [--until-idle]`: runs the farm in this terminal — probes the workstations,
 * reconciles attempts left open, dispatches queued jobs — printing each job change. Ctrl+C leaves
 * running prompts on the workstations (the next start picks them up); `--until-idle` exits once
 * nothing is queued, pending on a retry, or running.
 */
import type { Engine } from '../engine/engine.js';
import type { Io } from './context.js';
import { EXIT } from './exit-codes.js';

export async function runFarm(engine: Engine, io: Io, o: { untilIdle?: boolean; json?: boolean }): Promise<number> {
  const scheduler = engine.startScheduler();
  const off = [
    engine.events.on('job.changed', ({ job }) => {
      if (o.json) io.out(JSON.stringify({ event: 'job.changed', job }));
      else io.out(`${new Date().toISOString().slice(11, 19)}  ${job.state.padEnd(16)} ${job.project}/${job.episode}/${job.shot} ${job.stage} take ${job.take}${job.stateReason ? `  ${job.stateReason}` : ''}`);
    }),
    engine.events.on('instance.changed', ({ instance }) => {
      if (!o.json) io.out(`${new Date().toISOString().slice(11, 19)}  workstation ${instance.name} is ${instance.health}${instance.lastError ? ` (${instance.lastError})` : ''}`);
    }),
  ];
  io.out(`Farm running on ${engine.dbFile}. Ctrl+C stops following; prompts keep running on the workstations.`);
  const busy = async (): Promise<boolean> => {
    const s = await engine.call('farm.status', {});
    return s.jobsByState.queued + s.jobsByState.running + s.jobsByState.failed_retryable > 0 || scheduler.activeAttempts() > 0;
  };
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (o.untilIdle) {
      // Checked on every job change, and every few seconds for jobs waiting on hardware.
      const check = async (): Promise<void> => {
        if (!(await busy())) stop();
      };
      off.push(engine.events.on('job.changed', () => void check()));
      const t = setInterval(() => void check(), 2000);
      off.push(() => clearInterval(t));
      void check();
    }
  });
  for (const f of off) f();
  const s = await engine.call('farm.status', {});
  io.out(`Stopped. ${Object.entries(s.jobsByState).filter(([, n]) => n > 0).map(([st, n]) => `${st} ${n}`).join(', ') || 'no jobs'}.`);
  return EXIT.ok;
}
