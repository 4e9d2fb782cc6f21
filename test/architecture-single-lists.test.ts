/**
 * Facts that every layer needs are written once, in shared/, and every layer derives from them: the
 * event topics (shared/events.ts), the error envelope's schema (shared/errors.ts) and what
 * "healthy" means for a workstation (shared/domain.ts). A second runtime list of topics, a second
 * envelope schema or a second health rule anywhere in electron/, renderer/ or shared/ fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_TOPICS } from '../shared/events.js';
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

const HOMES = {
  topics: 'shared/events.ts',
  envelope: 'shared/errors.ts',
  // The registry derives a workstation's health word; it does not decide what counts as healthy.
  health: ['shared/domain.ts', 'electron/engine/scheduler/instance-registry.ts'],
};

export function secondDefinitions(file: string, text: string): string[] {
  const out: string[] = [];
  if (file !== HOMES.topics) out.push(...topicLists(text).map((l) => `${file}: a list of event topics ${l}`));
  if (file !== HOMES.envelope) out.push(...envelopeSchemas(text).map((s) => `${file}: an error-envelope schema (${s})`));
  if (!HOMES.health.includes(file)) out.push(...healthRules(text).map((s) => `${file}: a health rule (${s}); use isHealthy`));
  return out;
}

test('event topics, the error envelope and "healthy" are each defined once, in shared/', () => {
  const offenders = ['electron', 'renderer', 'shared'].flatMap((d) => sourceFiles(join(REPO, d))).flatMap((full) =>
    secondDefinitions(relative(REPO, full), readFileSync(full, 'utf8')),
  );
  assert.deepEqual(offenders, []);
});

test('the single-list check notices a copied topic list, envelope schema and health rule', () => {
  const copied = `const TOPICS = ['job.changed', 'job.progress',\n  'instance.changed'] as const;`;
  assert.deepEqual(secondDefinitions('electron/server/x.ts', copied), ['electron/server/x.ts: a list of event topics [job.changed, job.progress, instance.changed]']);
  assert.deepEqual(secondDefinitions('shared/events.ts', copied), [], 'at home');
  assert.deepEqual(topicLists("z.union([z.object({ topic: z.literal('job.changed') }), z.object({ topic: z.literal('jobs.bulkChanged') })])"),
    ['[job.changed, jobs.bulkChanged]'], 'a list of per-topic schemas is a list of topics too');
  assert.deepEqual(topicLists("const offs = [events.on('job.changed', f), events.on('job.progress', g)];"), [], 'subscriptions are not a list');
  const schema = 'const env = z.object({ code: z.enum(ERROR_CODES), message: z.string(), retryable: z.boolean() });';
  assert.equal(secondDefinitions('renderer/client/x.ts', schema).length, 2);
  assert.deepEqual(secondDefinitions('shared/errors.ts', schema), []);
  assert.equal(secondDefinitions('renderer/x.tsx', "instances.filter((i) => i.health === 'idle' || i.health === 'busy')").length, 2);
});
