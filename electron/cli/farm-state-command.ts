/**
 * `shotfarm farm stop|pause|resume|status`: the farm's durable state. pause: no new dispatch,
 * running prompts finish; stop: no new dispatch, running prompts interrupted, removed and their
 * jobs requeued; resume: dispatch again. The state is recorded in the database and lasts across
 * restarts; a farm running in another process on the same data folder (the app, `serve`, `run`)
 * acts on it within one probe interval. With no farm running, it is only recorded.
 */
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import type { FarmStatus, StorageHoldView } from '../../shared/domain.js';
import { FARM_STATE_WORDS, type FarmStateView } from '../../shared/farm-settings.js';
import { printJson, type Io, type Run } from './context.js';
import { appliesWhen } from './settings-command.js';
import { formatTable, formatTime } from './table.js';
import type { FarmEngines } from '../../shared/engines.js';

/** Who the record names: this command line, and the user running it when the system says. */
function cliActor(): string {
  try {
    return `cli ${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** One line: the state, what it means, who set it and when (`status`, `health` and `farm status` print it). */
export function farmStateLine(f: FarmStateView): string {
  const who = [f.by ? `by ${f.by}` : '', f.at !== null ? `at ${formatTime(f.at)} UTC` : ''].filter(Boolean).join(' ');
  return `Farm ${FARM_STATE_WORDS[f.state]}${who ? ` (set ${who})` : ''}${f.state === 'running' ? '' : '. Resume with: shotfarm farm resume'}`;
}

/** The line `status` and `farm status` add while the farm waits for its storage (a full disk, a locked database). */
export function storageHoldLine(h: StorageHoldView): string {
  return `Waiting for storage since ${formatTime(h.since)} UTC: ${h.reason}. It tries again by itself (next at ${formatTime(h.retryAt)} UTC).`;
}

const ACTIONS = [
  { name: 'pause', method: 'farm.pause', what: 'no new dispatch; running prompts finish' },
  {
    name: 'stop',
    method: 'farm.stop',
    what: 'no new dispatch; running prompts are interrupted, removed and their jobs requeued',
  },
  { name: 'resume', method: 'farm.resume', what: 'dispatch again' },
] as const;

/** `farm engines` as a person reads it: one row per engine, live ones first said as such. */
export function enginesText(list: FarmEngines): string {
  if (list.store === 'sqlite')
    return 'This farm is a SQLite data folder: one engine runs it (several engines share a farm on PostgreSQL: docs/postgresql.md).';
  if (list.engines.length === 0) return 'No engine has run this farm in the last day.';
  const rows = list.engines.map((x) => [
    x.live ? 'live' : x.stoppedAt !== null ? 'stopped' : 'gone',
    x.host,
    x.pid,
    x.kind,
    x.version,
    formatTime(x.since),
    x.workstations,
    x.stoppedAt !== null ? formatTime(x.stoppedAt) : `${(x.renewedAgoMs / 1000).toFixed(1)} s ago`,
    x.id,
  ]);
  return `${formatTable(['state', 'host', 'pid', 'kind', 'version', 'since', 'workstations', 'renewed', 'id'], rows)}
Leases last ${list.leaseS} s (lease_s).`;
}

function printStatus(io: Io, s: FarmStatus): void {
  io.out(farmStateLine(s.farmState));
  if (s.storageHold) io.out(storageHoldLine(s.storageHold));
  io.out(
    `running ${s.jobsByState.running}  queued ${s.jobsByState.queued}  retrying ${s.jobsByState.failed_retryable}  held ${s.jobsByState.held}`,
  );
}

export function registerFarm(program: Command, io: Io, run: Run): void {
  const farm = program
    .command('farm')
    .description("the farm's durable state: pause, stop, resume (lasts across restarts)");
  for (const a of ACTIONS) {
    farm
      .command(a.name)
      .description(a.what)
      .action(() =>
        run(async (e, g) => {
          const s = await e.call(a.method, { by: cliActor() });
          if (g.json) return printJson(io, s.farmState);
          printStatus(io, s);
          io.out(await appliesWhen(e));
        }),
      );
  }
  farm
    .command('engines')
    .description('the engines sharing a PostgreSQL farm: host, pid, version, since, workstations held, last renewal')
    .action(() =>
      run(async (e, g) => {
        const list = await e.call('farm.engines', {});
        if (g.json) return printJson(io, list);
        io.out(enginesText(list));
      }),
    );
  farm
    .command('status')
    .description('the farm state, who set it and when')
    .action(() =>
      run(async (e, g) => {
        const s = await e.call('farm.status', {});
        if (g.json) return printJson(io, { farmState: s.farmState, jobsByState: s.jobsByState });
        printStatus(io, s);
      }),
    );
}
