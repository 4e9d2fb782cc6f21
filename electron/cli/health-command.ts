/**
 * `shotfarm health`: probes every enabled workstation now and prints one line each. Exit 0 when
 * at least one is healthy (for service probes), 7 when none is or none is registered.
 */
import type { Command } from 'commander';
import { decimalOption, GB } from './args.js';
import type { EngineApi, Io, Run } from './context.js';
import { EXIT } from './exit-codes.js';
import { farmStateLine } from './farm-state-command.js';
import { terminalJson } from './terminal-text.js';

export function registerHealth(program: Command, io: Io, run: Run): void {
  program
    .command('health')
    .description('probe every workstation now; exit 0 when at least one is healthy')
    .option(
      '--timeout <ms>',
      'per-request timeout (default 2000)',
      decimalOption('--timeout', { integer: true, min: 1, max: 600_000 }, '2000'),
    )
    .action((o: { timeout?: number }) => run((e, g) => runHealth(e, io, o.timeout ?? 2000, Boolean(g.json))));
}

export async function runHealth(engine: EngineApi, io: Io, timeoutMs: number, json: boolean): Promise<number> {
  const report = await engine.call('instances.probeAll', { timeoutMs });
  const { farmState } = await engine.call('farm.status', {});
  const { healthy, instances } = report;
  if (json) {
    io.out(
      terminalJson({ healthy, farmState, instances: instances.map((i) => ({ name: i.name, url: i.url, ...i.probe })) }),
    );
  } else {
    // A paused or stopped farm with healthy workstations is still not rendering: say so first.
    io.out(farmStateLine(farmState));
    if (instances.length === 0)
      io.out('No workstations registered. Add one with: shotfarm workers add URL --name NAME');
    for (const { name, url, adminState, probe } of instances) {
      if (probe.ok) {
        const vram = probe.vram
          ? `${(probe.vram.totalBytes / GB).toFixed(0)} GB (ComfyUI ${(probe.vram.comfyBytes / GB).toFixed(1)}, other ${(probe.vram.otherBytes / GB).toFixed(1)}, free ${(probe.vram.freeBytes / GB).toFixed(1)})`
          : 'no GPU reported';
        io.out(
          `ok        ${name}  ${url}  ${probe.gpuName ?? '?'}  ${vram}  queue ${probe.queueRunning}+${probe.queuePending}  ${probe.latencyMs} ms${adminState === 'draining' ? '  (draining)' : ''}`,
        );
      } else {
        io.out(`unhealthy ${name}  ${url}  ${probe.error}`);
      }
    }
    io.out(`${healthy} of ${instances.length} workstation(s) healthy.`);
  }
  return healthy > 0 ? EXIT.ok : EXIT.unhealthy;
}
