/** `shotfarm workers add|import|list|remove|drain|disable|enable`: the workstations (one ComfyUI server each). */
import type { Command } from 'commander';
import type { BatchDefaults } from '../../shared/workstation-batch.js';
import { decimalOption, GB, list, vramPairs } from './args.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable, formatTime } from './table.js';
import { registerCloudWorkers } from './cloud-command.js';
import { UsageError } from './exit-codes.js';
import { addBatch, parseUrlArguments, readWorkstationFile } from './workers-batch.js';

/** Admin states an operator sets by name. */
const ADMIN_COMMANDS = [
  ['drain', 'draining', 'finish the current prompt, take no new one'],
  ['disable', 'disabled', 'take no work at all'],
  ['enable', 'active', 'take work again'],
] as const;

interface AddOptions {
  name?: string;
  tags?: string;
  concurrency?: number;
  vram?: Record<string, number>;
}

/** What --tags, --concurrency and --vram give every workstation of the command. */
function defaults(o: AddOptions): BatchDefaults {
  return {
    ...(o.tags ? { tags: list(o.tags) } : {}),
    ...(o.concurrency !== undefined ? { maxConcurrency: o.concurrency } : {}),
    ...(o.vram ? { vramOverrides: o.vram } : {}),
  };
}

const withFields = (c: Command): Command =>
  c
    .option('--tags <tags>', 'capability tags, comma-separated (e.g. img2img,i2v_video)')
    .option(
      '--concurrency <n>',
      'prompts at once (default 1)',
      decimalOption('--concurrency', { integer: true, min: 1, max: 16 }, '2'),
    )
    .option('--vram <stage=GB,...>', 'VRAM requirement overrides for jobs on this workstation', vramPairs);

function registerAdd(workers: Command, io: Io, run: Run): void {
  withFields(
    workers
      .command('add')
      .description(
        'register ComfyUI servers: one URL, several, or a range (http://gpu-[01-40]:8188); names come from the hosts unless --name',
      )
      .argument('<url...>', 'e.g. http://gpu-01:8188')
      .option('--name <name>', 'a short name for a single URL, e.g. gpu-01 (default: its host)'),
  ).action((urls: string[], o: AddOptions) =>
    run(async (e, g) => {
      if (o.name !== undefined && (urls.length > 1 || /\[\d+-\d+\]/.test(urls[0] ?? ''))) {
        throw new UsageError(
          '--name names one workstation; several URLs or a range are named from their hosts (or use workers import FILE with a name column).',
        );
      }
      if (o.name === undefined) return addBatch(e, io, g, 'the arguments', parseUrlArguments(urls, defaults(o)));
      const v = await e.call('instances.add', { name: o.name, url: urls[0] ?? '', ...defaults(o) });
      if (g.json) return printJson(io, v);
      io.out(
        `Added ${v.name} at ${v.url}${v.tags.length ? ` [${v.tags.join(', ')}]` : ''}. Check it with: shotfarm health`,
      );
    }),
  );
  withFields(
    workers
      .command('import')
      .description(
        'register the workstations of a file in one go (all or none): CSV or JSON with name, url, tags, vram, concurrency; otherwise one "[NAME] URL [TAGS]" per line',
      )
      .argument('<file>'),
  ).action((file: string, o: AddOptions) =>
    run(async (e, g) => addBatch(e, io, g, file, await readWorkstationFile(file, defaults(o)))),
  );
}

export function registerWorkers(program: Command, io: Io, run: Run): void {
  const workers = program.command('workers').description('manage workstations (one ComfyUI server each)');
  registerAdd(workers, io, run);
  registerCloudWorkers(workers, io, run);
  workers
    .command('list')
    .description('list workstations')
    .action(() =>
      run(async (e, g) => {
        const rows = await e.call('instances.list', {});
        if (g.json) return printJson(io, rows);
        io.out(
          formatTable(
            ['name', 'url', 'state', 'health', 'gpu', 'vram_gb', 'tags', 'concurrency', 'last_probe'],
            rows.map((i) => [
              i.name,
              i.url,
              i.adminState,
              i.health,
              i.gpuName ?? '',
              i.vram ? (i.vram.totalBytes / GB).toFixed(0) : '',
              i.tags.join(','),
              i.maxConcurrency,
              formatTime(i.lastProbeAt),
            ]),
          ),
        );
      }),
    );
  workers
    .command('pin')
    .description(
      'several engines on PostgreSQL: drive a workstation only from one engine (its id or host, see farm engines)',
    )
    .argument('<name>')
    .option('--engine <engine>', 'the engine id or host name to pin it to')
    .option('--none', 'unpin it: any engine may drive it')
    .action((ref: string, o: { engine?: string; none?: boolean }) =>
      run(async (e, g) => {
        if ((o.engine === undefined) === (o.none !== true))
          throw new UsageError('Give either --engine ENGINE (an id or host from `shotfarm farm engines`) or --none.');
        const v = await e.call('instances.pin', { id: ref, engine: o.none ? null : (o.engine as string) });
        if (g.json) return printJson(io, v);
        io.out(
          v.engine?.pinned
            ? `${v.name} is pinned to ${v.engine.pinned}: only that engine drives it (it moves at the next lease renewal).`
            : `${v.name} is not pinned: any engine may drive it.`,
        );
      }),
    );
  workers
    .command('remove')
    .description('unregister a workstation')
    .argument('<name>')
    .action((name: string) =>
      run(async (e) => {
        await e.call('instances.remove', { id: name });
        io.out(`Removed ${name}.`);
      }),
    );
  for (const [name, state, what] of ADMIN_COMMANDS) {
    workers
      .command(name)
      .description(what)
      .argument('<name>')
      .action((ref: string) =>
        run(async (e, g) => {
          const v = await e.call('instances.setAdminState', { id: ref, adminState: state });
          if (g.json) return printJson(io, v);
          io.out(`${v.name} is now ${v.adminState}.`);
        }),
      );
  }
}
