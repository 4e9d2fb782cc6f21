/**
 * `shotfarm jobs list`, `shotfarm jobs why JOB` and the operator's actions on jobs (`bump`, `hold`,
 * `release`, `cancel`, `retry`, `new-take`). Jobs are named by id or a unique prefix, resolved by the engine.
 */
import { jobEtaWords as etaWords } from '../../shared/forecast.js';
import { Option, type Command } from 'commander';
import type { JobView, JobWhy } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { JOB_STATES, type JobState } from '../../shared/job-states.js';
import { lostContactWords } from '../../shared/live-attempt.js';
import { PRIORITIES, type Priority } from '../../shared/priorities.js';
import { decimalValue, list } from './args.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable, formatTime } from './table.js';

/** What `jobs list` says a job waits for: the engine's wait reason, else why it is in its state. */
function waitsFor(j: JobView): string {
  if (j.contact) return 'lost contact (below)';
  if (j.blocked) return `blocked: ${j.waitReason ?? ''}`;
  return j.waitReason ?? j.stateReason ?? '';
}

function registerJobList(jobs: Command, io: Io, run: Run): void {
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
        if (bad?.length)
          throw new ShotfarmError('bad_input', `Unknown state ${bad.join(', ')}; use ${JOB_STATES.join(', ')}.`);
        const page = await e.call('jobs.list', {
          filter: {
            states: states as JobState[] | undefined,
            project: o.project,
            episode: o.episode,
            shot: o.shot,
            stage: o.stage,
            priority: o.priority as Priority | undefined,
            search: o.search,
          },
          limit: decimalValue(o.limit, '--limit', { integer: true, min: 1, max: 100_000 }, '100'),
        });
        if (g.json) return printJson(io, page);
        io.out(
          formatTable(
            [
              'id',
              'project',
              'episode',
              'shot',
              'stage',
              'take',
              'priority',
              'state',
              'attempts',
              'updated',
              'eta',
              'waits for / reason',
            ],
            page.rows.map((j) => [
              j.id.slice(0, 8),
              j.project,
              j.episode,
              j.shot,
              j.stage,
              j.take,
              j.priority,
              j.state,
              `${j.attempts}/${j.maxAttempts}`,
              formatTime(j.updatedAt),
              etaWords(j, Date.now()),
              waitsFor(j),
            ]),
            72,
          ),
        );
        // A running job whose workstation went silent says so in full, counting from its last answer.
        for (const j of page.rows)
          if (j.contact) io.out(`${j.id.slice(0, 8)}  ${lostContactWords(j.contact, Date.now())}`);
        io.out(`${page.rows.length} of ${page.total} job(s).`);
      }),
    );
}

const LASTING_WORDS = {
  now: 'the farm may change this by itself',
  operator: 'someone must act (enable, un-drain, release, make a new take)',
  never: 'this farm lacks what it needs (add or change a workstation)',
} as const;

/** `jobs why`: the summary, then one line per workstation. */
function printWhy(io: Io, w: JobWhy, label: string): void {
  io.out(`${label}: ${w.state}${w.blocked ? ', blocked' : ''} — ${w.summary}`);
  if (w.lasting) io.out(`  lasts: ${w.lasting} (${LASTING_WORDS[w.lasting]})`);
  if (w.dependency)
    io.out(
      `  depends on ${w.dependency.id.slice(0, 8)} (${w.dependency.stage} take ${w.dependency.take}): ${w.dependency.state}`,
    );
  if (w.retryAt !== null) io.out(`  queued again at ${formatTime(w.retryAt)} UTC`);
  if (w.state === 'queued') {
    if (w.instances.length === 0) io.out('  no workstation is registered (shotfarm workers add URL --name N)');
    const width = Math.max(0, ...w.instances.map((i) => i.name.length));
    for (const i of w.instances) io.out(`  ${i.name.padEnd(width)}  ${(i.kind ?? 'ok').padEnd(17)} ${i.text}`);
  }
  for (const line of w.vram ?? []) io.out(`  VRAM: ${line}`);
  if (w.source === 'store')
    io.out(
      '  (from what the store holds: no farm runs in this process; health is as last probed, reservations unknown)',
    );
}

function registerWhy(jobs: Command, io: Io, run: Run): void {
  jobs
    .command('why')
    .description('why a job is not running: per workstation for a queued job, its dependency, its backoff')
    .argument('<job>', 'job id or unique prefix')
    .action((ref: string) =>
      run(async (e, g) => {
        const { ids } = await e.call('jobs.resolveIds', { refs: [ref] });
        const id = ids[0] as string;
        const [why, job] = await Promise.all([e.call('jobs.why', { id }), e.call('jobs.get', { id })]);
        if (g.json) return printJson(io, why);
        printWhy(io, why, `${id.slice(0, 8)} ${job.shot}/${job.stage} take ${job.take}`);
      }),
    );
}

function registerBump(program: Command, io: Io, run: Run): void {
  program
    .command('bump')
    .description('change the priority of jobs, or move them to the top of their priority')
    .argument('<jobs...>', 'job ids or unique prefixes')
    .addOption(new Option('--priority <p>', 'new priority').choices([...PRIORITIES]))
    .option('--top', 'move ahead of every other job of the same priority')
    .action((refs: string[], o) =>
      run(async (e, g) => {
        if (!o.priority && !o.top)
          throw new ShotfarmError('bad_input', 'Say --priority rush|high|normal|low, --top, or both.');
        const { ids } = await e.call('jobs.resolveIds', { refs });
        let views = o.priority ? await e.call('jobs.bump', { ids, priority: o.priority as Priority }) : [];
        if (o.top) views = await e.call('jobs.moveToTop', { ids });
        if (g.json) return printJson(io, views);
        for (const j of views)
          io.out(`${j.id.slice(0, 8)} ${j.shot}/${j.stage} take ${j.take}: ${j.priority}, rank ${j.rank}`);
      }),
    );
}

/** The state actions: one command each, all the same shape. */
const STATE_ACTIONS = [
  ['hold', 'jobs.hold', 'pause jobs (not dispatched until released)'],
  ['release', 'jobs.release', 'release held jobs'],
  ['cancel', 'jobs.cancel', 'cancel jobs (a running prompt is interrupted)'],
  ['retry', 'jobs.retry', 'retry failed, timed-out or cancelled jobs (same take, fresh attempts)'],
  ['new-take', 'jobs.newTake', 'render jobs again as a new take (new id, new seed)'],
] as const;

export function registerJobs(program: Command, io: Io, run: Run): void {
  const jobs = program.command('jobs').description('list jobs, and say why one waits');
  registerJobList(jobs, io, run);
  registerWhy(jobs, io, run);
  registerBump(program, io, run);
  for (const [name, method, what] of STATE_ACTIONS) {
    program
      .command(name)
      .description(what)
      .argument('<jobs...>', 'job ids or unique prefixes')
      .action((refs: string[]) =>
        run(async (e, g) => {
          const { ids } = await e.call('jobs.resolveIds', { refs });
          const views = await e.call(method, { ids });
          if (g.json) return printJson(io, views);
          for (const j of views) io.out(`${j.id.slice(0, 8)} ${j.shot}/${j.stage} take ${j.take}: ${j.state}`);
        }),
      );
  }
}
