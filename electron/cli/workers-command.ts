/** `shotfarm workers add|list|remove|drain|disable|enable`: the workstations (one ComfyUI server each). */
import type { Command } from 'commander';
import { decimalOption, GB, list, vramPairs } from './args.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable, formatTime } from './table.js';
import { registerCloudWorkers } from './cloud-command.js';

/** Admin states an operator sets by name. */
const ADMIN_COMMANDS = [
  ['drain', 'draining', 'finish the current prompt, take no new one'],
  ['disable', 'disabled', 'take no work at all'],
  ['enable', 'active', 'take work again'],
] as const;

function registerAdd(workers: Command, io: Io, run: Run): void {
  workers
    .command('add')
    .description('register a ComfyUI server')
    .argument('<url>', 'e.g. http://gpu-01:8188')
    .requiredOption('--name <name>', 'a short name, e.g. gpu-01')
    .option('--tags <tags>', 'capability tags, comma-separated (e.g. img2img,i2v_video)')
    .option('--concurrency <n>', 'prompts at once (default 1)', decimalOption('--concurrency', { integer: true, min: 1, max: 16 }, '2'))
    .option('--vram <stage=GB,...>', 'VRAM requirement overrides for jobs on this workstation', vramPairs)
    .action((url: string, o) =>
      run(async (e, g) => {
        const v = await e.call('instances.add', {
          name: o.name, url, tags: o.tags ? list(o.tags) : undefined,
          maxConcurrency: o.concurrency, vramOverrides: o.vram,
        });
        if (g.json) return printJson(io, v);
        io.out(`Added ${v.name} at ${v.url}${v.tags.length ? ` [${v.tags.join(', ')}]` : ''}. Check it with: shotfarm health`);
      }),
    );
}

export function registerWorkers(program: Command, io: Io, run: Run): void {
  const workers = program.command('workers').description('manage workstations (one ComfyUI server each)');
  registerAdd(workers, io, run);
  registerCloudWorkers(workers, io, run);
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
  for (const [name, state, what] of ADMIN_COMMANDS) {
    workers.command(name).description(what).argument('<name>').action((ref: string) =>
      run(async (e, g) => {
        const v = await e.call('instances.setAdminState', { id: ref, adminState: state });
        if (g.json) return printJson(io, v);
        io.out(`${v.name} is now ${v.adminState}.`);
      }),
    );
  }
}
