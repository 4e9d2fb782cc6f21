/**
 * Who may call a method, and from where, is written once: the method table (shared/methods.ts).
 * Every permission and reach list — the classes, the local-only methods, the desktop page's
 * methods, each transport's refusals, what the UI shows a role — derives from it; the table fails
 * to load when a contract method lacks an entry; and a second list of methods (an array or set of
 * method names, a switch over them, a record of their classes) anywhere else fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { API_INPUTS, type ApiMethod } from '../shared/api.js';
import {
  DESKTOP_PAGE_METHODS,
  DOORS,
  LOCAL_ONLY_METHODS,
  METHOD_CLASS as TABLE_CLASS,
  METHODS,
  methodEntry,
  methodTableProblems,
  reachOpens,
  entryRefusal,
  reachRefusal,
  REACHES,
  targetedJobs,
  askedPriority,
  type AnyMethodEntry,
} from '../shared/methods.js';
import { METHOD_CLASSES, ROLES, type SessionView } from '../shared/people.js';
import { METHOD_CLASS, mayUse, permission, sessionMayCall } from '../shared/permissions.js';
import { JOB_ACTIONS } from '../shared/job-states.js';
import { PRIORITIES } from '../shared/priorities.js';
import { PAGE_METHODS } from '../electron/preload/channels.js';
import { desktopPageRefusal, networkRefusal } from '../electron/engine/hosting/reach-refusal.js';
import { mayAction } from '../renderer/lib/permissions.js';
import { REPO } from './helpers/engine.js';
import { sourceFiles } from './helpers/source-files.js';

const ALL = Object.keys(API_INPUTS) as ApiMethod[];
const TABLE = METHODS as unknown as Record<string, AnyMethodEntry>;

test('the method table has exactly one entry per contract method, and a missing or stray entry is named', () => {
  assert.deepEqual(Object.keys(METHODS).sort(), [...ALL].sort());
  assert.deepEqual(methodTableProblems(ALL, TABLE), []);
  const { ['jobs.hold']: _dropped, ...withoutHold } = TABLE;
  assert.deepEqual(methodTableProblems(ALL, withoutHold), [
    'jobs.hold has no entry in the method table (shared/methods.ts)',
  ]);
  assert.deepEqual(methodTableProblems(ALL, { ...TABLE, 'jobs.dropTable': { class: 'read', reach: 'studio' } }), [
    'jobs.dropTable is in the method table but is no contract method (shared/api.ts)',
  ]);
  // A contract method added without an entry is refused the same way.
  assert.deepEqual(methodTableProblems([...ALL, 'instances.planted'], TABLE), [
    'instances.planted has no entry in the method table (shared/methods.ts)',
  ]);
});

test('the table check refuses an unknown class or reach, a priority without jobs, and a field rule that widens or narrows nothing', () => {
  const problems = methodTableProblems(['a.b', 'c.d', 'e.f', 'g.h'], {
    'a.b': { class: 'everything' as never, reach: 'anywhere' as never },
    'c.d': { class: 'priority', reach: 'studio', asks: () => 'rush' },
    'e.f': { class: 'settings', reach: 'local', fields: { path: { reach: 'studio', words: 'x' } } },
    'g.h': { class: 'settings', reach: 'desktop', fields: { key: { reach: 'desktop', words: 'x' } } },
  });
  assert.deepEqual(problems, [
    'a.b: unknown class everything',
    'a.b: unknown reach anywhere',
    'c.d: asks for a priority but targets no jobs',
    "e.f.path: reach studio is wider than the method's local",
    "g.h.key: reach desktop is the method's own; the rule narrows nothing",
  ]);
});

test('every permission and reach list is the table read one way', () => {
  for (const m of ALL) assert.equal(METHOD_CLASS[m], METHODS[m].class, m);
  assert.equal(METHOD_CLASS, TABLE_CLASS, "the policy's METHOD_CLASS is the table's");
  assert.deepEqual([...LOCAL_ONLY_METHODS].sort(), ALL.filter((m) => !reachOpens(METHODS[m].reach, 'network')).sort());
  assert.deepEqual(
    [...DESKTOP_PAGE_METHODS].sort(),
    ALL.filter((m) => reachOpens(METHODS[m].reach, 'desktopPage')).sort(),
  );
  assert.equal(PAGE_METHODS, DESKTOP_PAGE_METHODS, "the preload's PAGE_METHODS is the table's");
  // Each door's refusal, on a call that gives no field, is the method's reach and nothing else.
  for (const m of ALL) {
    for (const door of DOORS)
      assert.equal(reachRefusal(door, m, {}) === null, reachOpens(METHODS[m].reach, door), `${m} at ${door}`);
    assert.equal(networkRefusal(m, {})?.code ?? null, reachOpens(METHODS[m].reach, 'network') ? null : 'forbidden', m);
    assert.equal(
      desktopPageRefusal(m, {})?.code ?? null,
      reachOpens(METHODS[m].reach, 'desktopPage') ? null : 'forbidden',
      m,
    );
  }
  // This machine's door is open to every method: the CLI may do anything the data folder allows.
  assert.deepEqual(
    ALL.filter((m) => reachRefusal('machine', m, { key: 'output_root' }) !== null),
    [],
  );
});

test('a field rule narrows its method: the desktop page may set a number setting, not a folder', () => {
  assert.equal(reachRefusal('desktopPage', 'settings.set', { key: 'retry_attempts', value: 5 }), null);
  assert.equal(reachRefusal('desktopPage', 'settings.set', { key: 'project_weights', value: 'A=1' }), null);
  assert.match(
    reachRefusal('desktopPage', 'settings.set', { key: 'output_root', value: '/tmp' }) ?? '',
    /folder settings \(output_root, releases_root\) are changed on this machine's command line/,
  );
  assert.match(reachRefusal('desktopPage', 'settings.reset', { key: 'releases_root' }) ?? '', /folder settings/);
  // Not a setting's key: the engine's own validation answers (bad_input), not a refusal.
  assert.equal(reachRefusal('desktopPage', 'settings.set', { key: 'no_such_setting', value: 1 }), null);
  assert.equal(reachRefusal('machine', 'settings.set', { key: 'output_root', value: '/tmp' }), null);
});

test('a field rule on a page method refuses that field over the network only (how RunPod apiBase plugs in)', () => {
  const entry: AnyMethodEntry = {
    class: 'workstations',
    reach: 'studio',
    fields: {
      apiBase: {
        reach: 'desktop',
        words: 'A RunPod API address is set on the farm host: shotfarm workers add-runpod --api-base URL.',
      },
    },
  };
  assert.deepEqual(methodTableProblems(['cloud.addRunpod'], { 'cloud.addRunpod': entry }), []);
  const withBase = { name: 'rp', endpointId: 'abc', apiBase: 'http://127.0.0.1:9/v2' };
  assert.match(entryRefusal(entry, 'network', 'cloud.addRunpod', withBase) ?? '', /set on the farm host/);
  assert.equal(entryRefusal(entry, 'desktopPage', 'cloud.addRunpod', withBase), null);
  assert.equal(entryRefusal(entry, 'machine', 'cloud.addRunpod', withBase), null);
  const { apiBase: _default, ...without } = withBase;
  assert.equal(
    entryRefusal(entry, 'network', 'cloud.addRunpod', without),
    null,
    "the default API address is anyone's to use",
  );
  assert.equal(
    entryRefusal(entry, 'network', 'cloud.addRunpod', { ...without, apiBase: undefined }),
    null,
    'undefined is not given',
  );
});

test('the jobs a call targets and the priority it asks come from the table (the own-jobs and rush rules)', () => {
  const id = '00000000-0000-4000-8000-000000000001';
  for (const action of JOB_ACTIONS)
    assert.deepEqual(targetedJobs(`jobs.${action}`, { ids: [id], priority: 'high' }), [id], action);
  assert.deepEqual(targetedJobs('jobs.restoreOrder', { jobs: [{ id, priority: 'low', rank: 1 }] }), [id]);
  assert.equal(askedPriority('jobs.bump', { ids: [id], priority: 'rush' }), 'rush');
  assert.equal(
    askedPriority('jobs.restoreOrder', {
      jobs: [
        { id, priority: 'low', rank: 1 },
        { id, priority: 'rush', rank: 2 },
      ],
    }),
    'rush',
  );
  const onJobs = ALL.filter((m) => methodEntry(m).targets);
  assert.deepEqual(onJobs.sort(), [...JOB_ACTIONS.map((a) => `jobs.${a}`), 'jobs.restoreOrder'].sort());
  assert.ok(
    onJobs.every((m) => methodEntry(m).verb),
    'a method on jobs says its verb for "cannot <verb> jobs imported by others"',
  );
});

test("what the UI shows a role (sessionMayCall, the renderer's mayAction) is the policy read from the same table", () => {
  for (const role of ROLES) {
    const session: SessionView = {
      name: 'mira',
      role,
      solo: false,
      may: Object.fromEntries(METHOD_CLASSES.map((c) => [c, mayUse(role, c)])) as SessionView['may'],
    };
    for (const m of ALL) {
      // Shown when the policy allows it on one's own jobs (the server decides per job).
      const allowedOnOwn = permission({ role, method: m, others: { count: 0, of: 1 } }).allowed;
      assert.equal(sessionMayCall(session, m), allowedOnOwn, `${role} × ${m}`);
      if (!methodEntry(m).asks) continue;
      for (const p of PRIORITIES)
        assert.equal(
          sessionMayCall(session, m, p),
          permission({ role, method: m, priority: p }).allowed,
          `${role} × ${m} at ${p}`,
        );
    }
    for (const action of JOB_ACTIONS) {
      for (const p of [undefined, ...PRIORITIES])
        assert.equal(
          mayAction(session, action, p),
          sessionMayCall(session, `jobs.${action}`, p),
          `${role} × ${action} ${p}`,
        );
    }
  }
  assert.equal(
    sessionMayCall(null, 'users.add'),
    true,
    'until the session is known everything shows; the server decides',
  );
});

// --- No second list -----------------------------------------------------------------------------

const HOME = 'shared/methods.ts';

/** Array literals (innermost brackets) with two or more contract method names as elements: a list of methods. */
export function methodLists(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\[([^[\]]*)\]/g)) {
    const named = [...(m[1] as string).matchAll(/(?:^|,)\s*['"`]([\w.]+)['"`]\s*(?=,|$)/g)]
      .map((x) => x[1] as string)
      .filter((n) => n in API_INPUTS);
    if (new Set(named).size >= 2) out.push(`[${[...new Set(named)].join(', ')}]`);
  }
  return out;
}

/** A switch over method names: two or more `case 'jobs.hold':`. */
export function methodSwitches(text: string): string[] {
  const cases = [...text.matchAll(/case\s+['"`]([\w.]+)['"`]\s*:/g)]
    .map((x) => x[1] as string)
    .filter((n) => n in API_INPUTS);
  return cases.length >= 2 ? [`switch over ${cases.join(', ')}`] : [];
}

/**
 * A record of methods (or the job actions, which are `jobs.<action>`) to classes or reaches
 * (`'jobs.hold': 'jobActions'`, `bump: 'priority'`): a second table.
 */
export function methodRecords(text: string): string[] {
  const words = new Set<string>([...METHOD_CLASSES, ...REACHES]);
  const keys = new Set<string>([...Object.keys(API_INPUTS), ...JOB_ACTIONS]);
  const pairs = [...text.matchAll(/(?:['"`]([\w.]+)['"`]|\b(\w+))\s*:\s*['"`](\w+)['"`]/g)]
    .map((x) => [x[1] ?? x[2] ?? '', x[3] ?? ''] as const)
    .filter(([key, value]) => keys.has(key) && words.has(value));
  return pairs.length >= 2 ? [`a record of ${pairs.map(([k, v]) => `${k}→${v}`).join(', ')}`] : [];
}

export function secondMethodLists(file: string, text: string): string[] {
  if (file === HOME) return [];
  return [...methodLists(text), ...methodSwitches(text), ...methodRecords(text)].map((s) => `${file}: ${s}`);
}

test('no list, switch or class record of contract methods outside the method table', () => {
  const offenders = ['electron', 'renderer', 'shared']
    .flatMap((d) => sourceFiles(join(REPO, d)))
    .flatMap((full) => secondMethodLists(relative(REPO, full), readFileSync(full, 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the second-list check notices a copied method list, a switch over methods and a class record', () => {
  const list = "export const LOCAL_ONLY = new Set(['hooks.set', 'hooks.add',\n  'storage.set']);";
  assert.deepEqual(secondMethodLists('electron/server/x.ts', list), [
    'electron/server/x.ts: [hooks.set, hooks.add, storage.set]',
  ]);
  assert.deepEqual(secondMethodLists(HOME, list), [], 'at home');
  const sw = "switch (method) { case 'jobs.bump': case 'jobs.hold': return ids; default: return null; }";
  assert.deepEqual(secondMethodLists('electron/engine/auth/authorize.ts', sw), [
    'electron/engine/auth/authorize.ts: switch over jobs.bump, jobs.hold',
  ]);
  const rec = "const ACTION_CLASS = { 'jobs.bump': 'priority', 'jobs.hold': 'jobActions' };";
  assert.deepEqual(secondMethodLists('renderer/lib/x.ts', rec), [
    'renderer/lib/x.ts: a record of jobs.bump→priority, jobs.hold→jobActions',
  ]);
  const actions = "const ACTION_CLASS = {\n  bump: 'priority', moveToTop: 'moveToTop', hold: 'jobActions',\n};";
  assert.deepEqual(secondMethodLists('renderer/lib/permissions.ts', actions), [
    'renderer/lib/permissions.ts: a record of bump→priority, moveToTop→moveToTop, hold→jobActions',
  ]);
  assert.deepEqual(
    secondMethodLists('electron/main/main.ts', "{ 'farm.stop': 'stop', 'farm.pause': 'pause' }"),
    [],
    'menu words are not classes',
  );
  assert.deepEqual(methodLists("['jobs.hold']"), [], 'one name is not a list');
});
