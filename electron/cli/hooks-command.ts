/**
 * `shotfarm hooks …`: the operator's hooks (SPEC §8), kept in this machine's settings — never
 * read from a shot list. A command hook is a program and its arguments, run without a shell:
 *   shotfarm hooks add-command notify --on completed,failed -- /usr/local/bin/notify-render --channel renders
 */
import type { Command } from 'commander';
import { ShotfarmError } from '../../shared/errors.js';
import {
  DEFAULT_HOOK_RETRIES,
  DEFAULT_HOOK_TIMEOUT_MS,
  DELIVERY_STATUSES,
  HOOK_EVENTS,
  hookTarget,
  type DeliveryStatus,
  type HookEvent,
} from '../../shared/hooks.js';
import { decimalValue } from './args.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable, formatTime } from './table.js';

interface DeliveryOptions {
  on: string;
  timeout?: string;
  retries?: string;
}

function events(value: string): HookEvent[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e));
  if (bad.length || list.length === 0)
    throw new ShotfarmError('bad_input', `--on takes ${HOOK_EVENTS.join(', ')} (comma-separated); got "${value}".`);
  return list as HookEvent[];
}

function integer(value: string | undefined, flag: string, example: string): number | undefined {
  return value === undefined ? undefined : decimalValue(value, flag, { integer: true }, example);
}

function common(o: DeliveryOptions): { on: HookEvent[]; timeoutMs?: number; retries?: number } {
  const timeoutMs = integer(o.timeout, '--timeout', '5000');
  const retries = integer(o.retries, '--retries', '3');
  return {
    on: events(o.on),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retries !== undefined ? { retries } : {}),
  };
}

const withDeliveryOptions = (c: Command): Command =>
  c
    .requiredOption('--on <events>', `when to run: ${HOOK_EVENTS.join(', ')} (comma-separated)`)
    .option('--timeout <ms>', `time one delivery may take (default ${DEFAULT_HOOK_TIMEOUT_MS})`)
    .option('--retries <n>', `further tries after a failure, with backoff (default ${DEFAULT_HOOK_RETRIES})`);

function registerAdds(hooks: Command, io: Io, run: Run): void {
  withDeliveryOptions(
    hooks
      .command('add-command')
      .description(
        "run PROGRAM ARGS… (no shell) with the job's JSON on stdin; put -- before arguments that start with -",
      )
      .argument('<id>', 'a name for the hook, e.g. notify-slack')
      .argument('<program>', 'absolute path or a name on PATH')
      .argument('[args...]', 'arguments, passed as is'),
  ).action((id: string, command: string, args: string[], o: DeliveryOptions) =>
    run(async (e, g) => {
      const h = await e.call('hooks.add', {
        hook: { id, kind: 'command', command, ...(args.length ? { args } : {}), ...common(o) },
      });
      if (g.json) return printJson(io, h);
      io.out(`Added hook ${h.id}: on ${h.on.join(', ')} run ${hookTarget(h)}`);
    }),
  );

  withDeliveryOptions(
    hooks
      .command('add-webhook')
      .description("POST the job's JSON to URL")
      .argument('<id>', 'a name for the hook, e.g. chat-renders')
      .argument('<url>', 'http:// or https:// URL'),
  ).action((id: string, url: string, o: DeliveryOptions) =>
    run(async (e, g) => {
      const h = await e.call('hooks.add', { hook: { id, kind: 'webhook', url, ...common(o) } });
      if (g.json) return printJson(io, h);
      io.out(`Added hook ${h.id}: on ${h.on.join(', ')} POST to ${hookTarget(h, true)}`);
    }),
  );
}

function registerDeliveries(hooks: Command, io: Io, run: Run): void {
  hooks
    .command('deliveries')
    .description('recent deliveries, newest first, with the last error of each')
    .option('--status <status>', DELIVERY_STATUSES.join(', '))
    .option('--limit <n>', 'rows to show', '50')
    .action((o: { status?: string; limit: string }) =>
      run(async (e, g) => {
        if (o.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(o.status)) {
          throw new ShotfarmError('bad_input', `--status takes ${DELIVERY_STATUSES.join(', ')}; got "${o.status}".`);
        }
        // Out-of-range limits are brought into range rather than refused (1 to 10,000 rows).
        const limit = Math.min(Math.max(integer(o.limit, '--limit', '50') ?? 50, 1), 10_000);
        const rows = await e.call('hooks.deliveries', {
          limit,
          ...(o.status ? { status: o.status as DeliveryStatus } : {}),
        });
        if (g.json) return printJson(io, rows);
        if (rows.length === 0) return io.out('No deliveries.');
        io.out(
          formatTable(
            ['id', 'hook', 'job', 'event', 'status', 'tries', 'updated', 'last_error'],
            rows.map((d) => [
              d.id,
              d.hookId,
              d.jobId.slice(0, 8),
              d.event,
              d.status,
              d.attempts,
              formatTime(d.updatedAt),
              d.lastError ?? '',
            ]),
            100,
          ),
        );
      }),
    );
}

export function registerHooks(program: Command, io: Io, run: Run): void {
  const hooks = program
    .command('hooks')
    .description("run a program or POST a webhook when a job completes or fails (this machine's settings only)");
  hooks
    .command('list')
    .description('list the hooks')
    .action(() =>
      run(async (e, g) => {
        const list = await e.call('hooks.list', {});
        if (g.json) return printJson(io, list);
        if (list.length === 0) return io.out('No hooks. Add one with: shotfarm hooks add-command | add-webhook');
        io.out(
          formatTable(
            ['id', 'kind', 'on', 'target', 'timeout_ms', 'retries'],
            list.map((h) => [
              h.id,
              h.kind,
              h.on.join(','),
              hookTarget(h, true),
              h.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
              h.retries ?? DEFAULT_HOOK_RETRIES,
            ]),
            80,
          ),
        );
      }),
    );
  registerAdds(hooks, io, run);
  hooks
    .command('remove')
    .description('remove a hook (its waiting retries are dropped)')
    .argument('<id>')
    .action((id: string) =>
      run(async (e) => {
        await e.call('hooks.remove', { id });
        io.out(`Removed hook ${id}.`);
      }),
    );
  hooks
    .command('clear')
    .description('remove every hook (also resets a hooks setting that no longer validates)')
    .action(() =>
      run(async (e) => {
        await e.call('hooks.set', { hooks: [] });
        io.out('Removed every hook.');
      }),
    );
  registerDeliveries(hooks, io, run);
}
