/**
 * Facts that every layer needs are written once, in shared/, and every layer derives from them: the
 * event topics (shared/events.ts), the error envelope's schema (shared/errors.ts), what "healthy"
 * means for a workstation (shared/domain.ts), the app's views (shared/app-views.ts) and the named
 * groups of job states — waiting, open, terminal, needing an operator… (shared/job-states.ts) — and
 * the take key (shared/take-key.ts). A second runtime list of topics, a second envelope schema, a
 * second health rule, a second list of views, a copy of a named group of states or a second
 * declaration of the take key anywhere in electron/, renderer/ or shared/ fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { APP_VIEWS } from '../shared/app-views.js';
import { EVENT_TOPICS } from '../shared/events.js';
import * as JobStates from '../shared/job-states.js';
import { JOB_STATES, type JobState } from '../shared/job-states.js';
import { REPO } from './helpers/engine.js';
import { sourceFiles } from './helpers/source-files.js';

const TOPICS = Object.keys(EVENT_TOPICS);

/**
 * Array literals (innermost brackets) with two or more event topics as their elements — as strings
 * (`['job.changed', …]`) or as zod literals (`[z.object({ topic: z.literal('job.changed') }), …]`):
 * a list of topics. An array of calls that merely name a topic each (subscriptions) is not.
 */
export function topicLists(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\[([^[\]]*)\]/g)) {
    const body = m[1] as string;
    const bare = [...body.matchAll(/(?:^|,)\s*['"`]([\w.]+)['"`]\s*(?=,|$)/g)];
    const literals = [...body.matchAll(/z\.literal\(\s*['"`]([\w.]+)['"`]\s*\)/g)];
    const named = new Set([...bare, ...literals].map((x) => x[1] as string).filter((t) => TOPICS.includes(t)));
    if (named.size >= 2) out.push(`[${[...named].join(', ')}]`);
  }
  return out;
}

/** An error envelope's schema: a zod object checking `retryable`, or the error codes as an enum. */
export function envelopeSchemas(text: string): string[] {
  return [...text.matchAll(/retryable:\s*z\.boolean\(\)|z\.enum\(\s*ERROR_CODES\s*\)/g)].map((m) => m[0]);
}

/** A health rule: a comparison of a health word with one of the healthy words. */
export function healthRules(text: string): string[] {
  return [...text.matchAll(/\bhealth\s*===\s*'(idle|busy|draining)'/g)].map((m) => m[0]);
}

/**
 * A list of the app's views: three or more view names as an array (`['queue', 'ledger', …]`), a
 * union type (`'queue' | 'failures' | …`) or the keys of one object (a label table).
 */
export function viewLists(text: string): string[] {
  const views: readonly string[] = APP_VIEWS;
  const out: string[] = [];
  const many = (names: string[]) => new Set(names.filter((n) => views.includes(n))).size >= 3;
  for (const m of text.matchAll(/\[([^[\]]*)\]/g)) {
    const names = [...(m[1] as string).matchAll(/(?:^|,)\s*['"`](\w+)['"`]\s*(?=,|$)/g)].map((x) => x[1] as string);
    if (many(names)) out.push(`[${names.join(', ')}]`);
  }
  for (const m of text.matchAll(/['"](\w+)['"](?:\s*\|\s*['"](\w+)['"])+/g)) {
    const names = [...m[0].matchAll(/['"](\w+)['"]/g)].map((x) => x[1] as string);
    if (many(names)) out.push(names.join(' | '));
  }
  for (const m of text.matchAll(/\{([^{}]*)\}/g)) {
    const keys = [...(m[1] as string).matchAll(/(?:^|,)\s*(\w+)\s*:/g)].map((x) => x[1] as string);
    if (many(keys)) out.push(`{ ${keys.join(', ')} }`);
  }
  return out;
}

/** The named groups of job states in shared/job-states.ts (every exported list of states but the whole). */
const STATE_GROUPS: ReadonlyMap<string, string> = new Map(
  Object.entries(JobStates)
    .filter(
      ([name, v]) =>
        name !== 'JOB_STATES' &&
        Array.isArray(v) &&
        v.length >= 2 &&
        v.every((x) => (JOB_STATES as readonly unknown[]).includes(x)),
    )
    .map(([name, v]) => [[...(v as JobState[])].sort().join(), name]),
);

/**
 * A copy of a named group of job states: the same states (in any order) as an array, an SQL `IN (…)`
 * list, or a chain of `=== 'state' ||` comparisons.
 */
export function stateGroupCopies(text: string): string[] {
  const states: readonly string[] = JOB_STATES;
  const out: string[] = [];
  const check = (names: string[], shown: string) => {
    const set = [...new Set(names)];
    if (set.length < 2 || !set.every((n) => states.includes(n))) return;
    const group = STATE_GROUPS.get(set.sort().join());
    if (group) out.push(`${shown} (use ${group})`);
  };
  for (const m of text.matchAll(/\[([^[\]]*)\]|\bIN\s*\(([^()]*)\)/g)) {
    const body = (m[1] ?? m[2]) as string;
    const items = body
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const names = items.map((x) => /^['"`](\w+)['"`]$/.exec(x)?.[1]);
    if (names.every((n): n is string => n !== undefined)) check(names, m[0]);
  }
  for (const m of text.matchAll(/[\w.]+\s*===\s*'\w+'(?:\s*\|\|\s*[\w.]+\s*===\s*'\w+')+/g)) {
    check(
      [...m[0].matchAll(/===\s*'(\w+)'/g)].map((x) => x[1] as string),
      m[0],
    );
  }
  return out;
}

const TAKE_FIELDS = ['project', 'episode', 'shot', 'stage', 'take'];

/**
 * A declaration of the take key: one object type (innermost braces) giving all five of project,
 * episode, shot, stage and take a type. Extending or picking from TakeKey is not a declaration.
 */
export function takeKeyDeclarations(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\{([^{}]*)\}/g)) {
    const typed = new Set(
      [...(m[1] as string).matchAll(/(?:^|[;,\n{])\s*(?:readonly\s+)?(\w+)\??\s*:\s*(?:string|number)\b/g)].map(
        (x) => x[1] as string,
      ),
    );
    if (TAKE_FIELDS.every((f) => typed.has(f))) out.push(`{ ${TAKE_FIELDS.join(', ')} }`);
  }
  return out;
}

const HOMES = {
  topics: 'shared/events.ts',
  envelope: 'shared/errors.ts',
  // The registry derives a workstation's health word; it does not decide what counts as healthy.
  health: ['shared/domain.ts', 'electron/engine/pools/comfy-lan/instance-registry.ts'],
  views: 'shared/app-views.ts',
  stateGroups: 'shared/job-states.ts',
  takeKey: 'shared/take-key.ts',
};

export function secondDefinitions(file: string, text: string): string[] {
  const out: string[] = [];
  if (file !== HOMES.topics) out.push(...topicLists(text).map((l) => `${file}: a list of event topics ${l}`));
  if (file !== HOMES.envelope)
    out.push(...envelopeSchemas(text).map((s) => `${file}: an error-envelope schema (${s})`));
  if (!HOMES.health.includes(file))
    out.push(...healthRules(text).map((s) => `${file}: a health rule (${s}); use isHealthy`));
  if (file !== HOMES.views)
    out.push(...viewLists(text).map((l) => `${file}: a list of the app's views ${l}; use APP_VIEWS`));
  if (file !== HOMES.stateGroups) out.push(...stateGroupCopies(text).map((l) => `${file}: a group of job states ${l}`));
  if (file !== HOMES.takeKey)
    out.push(...takeKeyDeclarations(text).map((l) => `${file}: a take key ${l}; use TakeKey from shared/take-key.ts`));
  return out;
}

test('event topics, the error envelope, "healthy", the views, the groups of job states and the take key are each defined once, in shared/', () => {
  const offenders = ['electron', 'renderer', 'shared']
    .flatMap((d) => sourceFiles(join(REPO, d)))
    .flatMap((full) => secondDefinitions(relative(REPO, full), readFileSync(full, 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the single-list check notices a copied topic list, envelope schema and health rule', () => {
  const copied = `const TOPICS = ['job.changed', 'job.progress',\n  'instance.changed'] as const;`;
  assert.deepEqual(secondDefinitions('electron/server/x.ts', copied), [
    'electron/server/x.ts: a list of event topics [job.changed, job.progress, instance.changed]',
  ]);
  assert.deepEqual(secondDefinitions('shared/events.ts', copied), [], 'at home');
  assert.deepEqual(
    topicLists(
      "z.union([z.object({ topic: z.literal('job.changed') }), z.object({ topic: z.literal('jobs.bulkChanged') })])",
    ),
    ['[job.changed, jobs.bulkChanged]'],
    'a list of per-topic schemas is a list of topics too',
  );
  assert.deepEqual(
    topicLists("const offs = [events.on('job.changed', f), events.on('job.progress', g)];"),
    [],
    'subscriptions are not a list',
  );
  const schema = 'const env = z.object({ code: z.enum(ERROR_CODES), message: z.string(), retryable: z.boolean() });';
  assert.equal(secondDefinitions('renderer/client/x.ts', schema).length, 2);
  assert.deepEqual(secondDefinitions('shared/errors.ts', schema), []);
  assert.equal(
    secondDefinitions('renderer/x.tsx', "instances.filter((i) => i.health === 'idle' || i.health === 'busy')").length,
    2,
  );
});

test('the single-list check notices a copied list of views and a copied group of job states', () => {
  assert.deepEqual(
    viewLists("export const VIEWS = ['queue', 'workstations', 'failures', 'timeline', 'ledger', 'settings'] as const;"),
    ['[queue, workstations, failures, timeline, ledger, settings]'],
  );
  assert.equal(
    viewLists("export type BridgeView = 'queue' | 'workstations' | 'failures' | 'timeline' | 'ledger' | 'settings';")
      .length,
    1,
    'a union type',
  );
  assert.equal(
    viewLists("const VIEW_LABEL = { queue: 'Queue', workstations: 'Workstations', failures: 'Failures' };").length,
    1,
    'a label table',
  );
  assert.deepEqual(
    viewLists("go('queue'); const tabs = ['queue', 'settings'];"),
    [],
    'naming a view or two is not a list',
  );
  assert.deepEqual(secondDefinitions('shared/app-views.ts', "['queue', 'workstations', 'failures']"), [], 'at home');

  const waiting =
    "const waiting = job && (job.state === 'queued' || job.state === 'pending' || job.state === 'failed_retryable' || job.state === 'held');";
  assert.deepEqual(
    stateGroupCopies(waiting).map((x) => x.replace(/.*\(use /, '')),
    ['WAITING_STATES)'],
  );
  assert.deepEqual(
    stateGroupCopies("const NEEDS_OPERATOR = ['held', 'failed_final', 'timeout_kill', 'cancelled'];").map((x) =>
      x.replace(/.*\(use /, ''),
    ),
    ['NEEDS_OPERATOR_STATES)'],
  );
  assert.deepEqual(
    stateGroupCopies("const WAITING_STATES = ['pending', 'queued', 'running', 'failed_retryable'] as const;").map((x) =>
      x.replace(/.*\(use /, ''),
    ),
    ['BACKLOG_STATES)'],
  );
  assert.equal(
    stateGroupCopies(
      "SELECT COUNT(*) FROM jobs WHERE state IN ('completed', 'failed_final', 'timeout_kill', 'cancelled')",
    ).length,
    1,
    'an SQL list',
  );
  assert.deepEqual(
    stateGroupCopies("states: ['completed'] ; WHERE state IN ('running', 'failed_retryable')"),
    [],
    'an unnamed group is not a copy',
  );
  assert.deepEqual(secondDefinitions('shared/job-states.ts', waiting), [], 'at home');
});

test('the single-list check notices a second declaration of the take key', () => {
  const planted =
    'export interface JobKey {\n  project: string;\n  episode: string;\n  shot: string;\n  stage: string;\n  take: number;\n}';
  assert.deepEqual(secondDefinitions('electron/engine/ids.ts', planted), [
    'electron/engine/ids.ts: a take key { project, episode, shot, stage, take }; use TakeKey from shared/take-key.ts',
  ]);
  assert.equal(
    takeKeyDeclarations(
      'path: { project: string; episode: string; sequence: string | null; shot: string; stage: string; take: number };',
    ).length,
    1,
    'inline, with extra fields',
  );
  assert.equal(
    takeKeyDeclarations(
      'interface Row { readonly project: string; episode: string; shot: string; stage: string; take?: number }',
    ).length,
    1,
    'readonly and optional fields',
  );
  assert.deepEqual(
    takeKeyDeclarations(
      'export interface JobRow extends TakeKey {\n  id: string;\n}\nconst k = { project: r.project, episode: r.episode, shot: r.shot, stage: r.stage, take: r.take };',
    ),
    [],
    'extending it, or building a value, is not a declaration',
  );
  assert.deepEqual(secondDefinitions('shared/take-key.ts', planted), [], 'at home');
});
