/**
 * Every contract method once, with what the hosts and the policy need to know about it: its role
 * class (permissions.ts grants classes), its reach (from where it may be called), the jobs it acts
 * on (the own-jobs rule counts their importers), the priority it asks for (the rush rule), the verb
 * of a refusal, and the fields that narrow its reach. Every other list — the classes, the
 * local-only methods, the desktop page's methods, the page transports' refusals, what the UI shows
 * a role — is derived from this table, never written again.
 *
 * Like the farm settings' TABLE, the table is checked when this module loads: a contract method
 * without an entry (or an entry for no method) fails every test instead of reaching a user.
 */
import { API_INPUTS, type ApiInput, type ApiMethod } from './api.js';
import { FARM_SETTINGS, FOLDER_SETTING_KEYS, isFarmSettingKey } from './farm-settings.js';
import { METHOD_CLASSES, type MethodClass } from './people.js';
import { PRIORITY_VALUE, type Priority } from './priorities.js';

/**
 * Where a call comes from:
 * - `machine`: this machine's CLI (in-process, or the running farm's loopback control listener)
 *   and the desktop shell's own menus;
 * - `desktopPage`: the desktop app's page, over IPC (the Studio UI, showing shot-list text from outside);
 * - `network`: `serve`'s API — a browser page, a script with a token, the desktop app in studio mode.
 */
export const DOORS = ['machine', 'desktopPage', 'network'] as const;
export type Door = (typeof DOORS)[number];

/**
 * Which doors a method is open at:
 * - `studio`: all of them; the Studio UI's views call it;
 * - `api`: this machine and `serve`'s API (scripts, the CLI's helpers), not the desktop page (no view calls it);
 * - `desktop`: this machine and the desktop page, never the network (the desktop's Settings view);
 * - `local`: this machine only (programs to run, secrets, files on this machine, people and tokens).
 */
export const REACH_DOORS = {
  studio: ['machine', 'desktopPage', 'network'],
  api: ['machine', 'network'],
  desktop: ['machine', 'desktopPage'],
  local: ['machine'],
} as const satisfies Record<string, readonly Door[]>;
export type Reach = keyof typeof REACH_DOORS;
export const REACHES = Object.keys(REACH_DOORS) as Reach[];

export function reachOpens(reach: Reach, door: Door): boolean {
  return (REACH_DOORS[reach] as readonly Door[]).includes(door);
}

/**
 * A field that narrows a method's reach: when the call gives it (and `applies` to its value, when
 * said), the call is open only at the field's reach. A page may add a workstation, say, but only
 * this machine may point one at a chosen API address.
 */
export interface FieldRule {
  reach: Reach;
  /** Whether the given value narrows the reach (default: any value given does). */
  applies?: (value: unknown) => boolean;
  /** The refusal's words where the field's reach is closed: what to do instead. */
  words: string;
}

export interface MethodEntry<M extends ApiMethod> {
  class: MethodClass;
  reach: Reach;
  /** The jobs it acts on, from its validated input: an `own` grant allows it only on the caller's own. */
  targets?: (input: ApiInput<M>) => readonly string[];
  /** The highest priority it asks for, from its validated input: rush needs the `rush` class. */
  asks?: (input: ApiInput<M>) => Priority;
  /** "artists cannot <verb> jobs imported by others"; the class's words when not given. */
  verb?: string;
  /** Fields of its input that only a narrower reach may give. */
  fields?: { readonly [F in keyof ApiInput<M> & string]?: FieldRule };
}

type MethodTable = { readonly [M in ApiMethod]: MethodEntry<M> };

const ids = (input: { ids: readonly string[] }): readonly string[] => input.ids;
const restored = (input: ApiInput<'jobs.restoreOrder'>): readonly string[] => input.jobs.map((j) => j.id);
const highestRestored = (input: ApiInput<'jobs.restoreOrder'>): Priority =>
  input.jobs.map((j) => j.priority).sort((a, b) => PRIORITY_VALUE[b] - PRIORITY_VALUE[a])[0] ?? 'low';

/**
 * The desktop's Settings view may change the number settings and project_weights (fair-share
 * weights only reorder the queue, as move-to-top does from the page). The folder settings point
 * the engine at folders to write into: the command line's to choose. A setting of any other type
 * stays local until it is decided here. Not a setting's key: the engine's validation answers it.
 */
const settingKey: FieldRule = {
  reach: 'local',
  applies: (key) => isFarmSettingKey(key) && FARM_SETTINGS[key].type !== 'number' && FARM_SETTINGS[key].type !== 'text',
  words: `The folder settings (${FOLDER_SETTING_KEYS.join(', ')}) are changed on this machine's command line: shotfarm settings set KEY PATH.`,
};

/**
 * The engine sends the farm's RunPod key to an endpoint's API base, so whoever chooses the base
 * receives the key (electron/engine/pools/runpod/api-base.ts): only this machine may name one.
 */
const apiBase: FieldRule = {
  reach: 'local',
  words:
    "A RunPod endpoint's API base receives the farm's RunPod key, so it is set only on the farm host: shotfarm workers add-runpod --api-base URL. Leave it out to use RunPod's API.",
};

const TABLE: MethodTable = {
  'farm.status': { class: 'read', reach: 'studio' },
  'farm.engines': { class: 'read', reach: 'studio' },
  'farm.stop': { class: 'farm', reach: 'studio' },
  'farm.pause': { class: 'farm', reach: 'studio' },
  'farm.resume': { class: 'farm', reach: 'studio' },

  'jobs.list': { class: 'read', reach: 'studio' },
  'jobs.get': { class: 'read', reach: 'studio' },
  'jobs.ids': { class: 'read', reach: 'api' },
  'jobs.resolveIds': { class: 'read', reach: 'api' },
  'jobs.attempts': { class: 'read', reach: 'studio' },
  'jobs.detail': { class: 'read', reach: 'studio' },
  'jobs.preview': { class: 'read', reach: 'studio' },
  'jobs.facets': { class: 'read', reach: 'studio' },
  'jobs.why': { class: 'read', reach: 'studio' },
  'jobs.bump': {
    class: 'priority',
    reach: 'studio',
    targets: ids,
    asks: (i) => i.priority,
    verb: 'change the priority of',
  },
  'jobs.restoreOrder': {
    class: 'priority',
    reach: 'studio',
    targets: restored,
    asks: highestRestored,
    verb: 'reorder',
  },
  'jobs.moveToTop': { class: 'moveToTop', reach: 'studio', targets: ids, verb: 'reorder' },
  'jobs.hold': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'hold' },
  'jobs.release': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'release' },
  'jobs.cancel': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'cancel' },
  'jobs.retry': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'retry' },
  'jobs.newTake': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'make new takes of' },
  'jobs.uncancel': { class: 'jobActions', reach: 'studio', targets: ids, verb: 'uncancel' },

  'failures.list': { class: 'read', reach: 'studio' },
  'timeline.get': { class: 'read', reach: 'studio' },
  'forecast.get': { class: 'read', reach: 'studio' },
  'assets.list': { class: 'read', reach: 'studio' },
  // Both hosts serve asset files through it (GET /files/asset/:id); no view calls it as a method.
  'assets.file': { class: 'read', reach: 'api' },
  'assets.approve': { class: 'approvals', reach: 'studio' },

  'import.preview': { class: 'import', reach: 'studio' },
  'import.previewRows': { class: 'import', reach: 'studio' },
  'import.commit': { class: 'import', reach: 'studio' },
  'uploads.check': { class: 'import', reach: 'studio' },

  'templates.list': { class: 'read', reach: 'studio' },
  'templates.add': { class: 'templates', reach: 'studio' },
  'templates.vram': { class: 'read', reach: 'studio' },
  'templates.pinVram': { class: 'templates', reach: 'studio' },
  'templates.runTimes': { class: 'read', reach: 'studio' },
  'templates.history': { class: 'read', reach: 'studio' },

  'instances.list': { class: 'read', reach: 'api' },
  'instances.add': { class: 'workstations', reach: 'studio' },
  'instances.addMany': { class: 'workstations', reach: 'studio' },
  'instances.update': { class: 'workstations', reach: 'studio' },
  'instances.remove': { class: 'workstations', reach: 'studio' },
  'instances.pin': { class: 'workstations', reach: 'api' },
  'instances.setAdminState': { class: 'workstations', reach: 'studio' },
  'instances.freeVram': { class: 'workstations', reach: 'studio' },
  'instances.test': { class: 'workstations', reach: 'studio' },
  'instances.probeAll': { class: 'workstations', reach: 'api' },
  'cloud.addRunpod': { class: 'workstations', reach: 'studio', fields: { apiBase } },
  'cloud.updateRunpod': { class: 'workstations', reach: 'studio' },
  'cloud.testRunpod': { class: 'workstations', reach: 'studio' },
  // The RunPod API key is a secret of this machine's.
  'cloud.setApiKey': { class: 'settings', reach: 'local' },
  'cloud.spend': { class: 'read', reach: 'api' },

  // A freeze writes files (inside the releases root); verify only reads manifests there.
  'release.freeze': { class: 'releases', reach: 'local' },
  'release.verify': { class: 'read', reach: 'api' },

  // Hooks choose programs this machine runs, and a webhook URL may hold a token.
  'hooks.list': { class: 'settings', reach: 'local' },
  'hooks.deliveries': { class: 'settings', reach: 'local' },
  'hooks.set': { class: 'settings', reach: 'local' },
  'hooks.add': { class: 'settings', reach: 'local' },
  'hooks.remove': { class: 'settings', reach: 'local' },

  'settings.list': { class: 'read', reach: 'studio' },
  'settings.get': { class: 'read', reach: 'api' },
  // How the farm retries, times out and shares its GPUs: the settings class's (operators, admins)
  // from any page; where it writes (the folder settings) only from this machine (settingKey).
  'settings.set': { class: 'settings', reach: 'studio', fields: { key: settingKey } },
  'settings.reset': { class: 'settings', reach: 'studio', fields: { key: settingKey } },

  'storage.get': { class: 'read', reach: 'api' },
  // The S3 setting may carry secrets.
  'storage.set': { class: 'settings', reach: 'local' },

  'export.runlog': { class: 'exports', reach: 'api' },
  'export.ledger': { class: 'exports', reach: 'api' },

  'session.whoami': { class: 'read', reach: 'studio' },

  // People and tokens: an admin manages them in the Settings view as on the farm host's CLI (the
  // people class is the admin's alone; the engine refuses an admin's own demotion or revocation).
  'users.list': { class: 'people', reach: 'studio' },
  'users.add': { class: 'people', reach: 'studio' },
  'users.setRole': { class: 'people', reach: 'studio' },
  'users.revoke': { class: 'people', reach: 'studio' },
  'users.token': { class: 'people', reach: 'studio' },
  // A database copy or replacement names files on this machine.
  'db.export': { class: 'people', reach: 'local' },
  'db.import': { class: 'people', reach: 'local' },
  'db.migrate': { class: 'people', reach: 'local' },
};

/** An entry as the hosts read it, for a method known only at run time (its input validated already). */
export interface AnyMethodEntry {
  class: MethodClass;
  reach: Reach;
  targets?: (input: unknown) => readonly string[];
  asks?: (input: unknown) => Priority;
  verb?: string;
  fields?: Readonly<Record<string, FieldRule | undefined>>;
}

/**
 * What is wrong with a table against the contract's methods: a method without an entry, an entry
 * for no method, a class or reach that does not exist, a rule that cannot apply. Empty when sound.
 */
export function methodTableProblems(
  methods: readonly string[],
  table: Readonly<Record<string, AnyMethodEntry | undefined>>,
): string[] {
  const problems: string[] = [];
  const known = new Set(methods);
  for (const m of methods)
    if (!Object.hasOwn(table, m)) problems.push(`${m} has no entry in the method table (shared/methods.ts)`);
  for (const [m, e] of Object.entries(table)) {
    if (!known.has(m)) problems.push(`${m} is in the method table but is no contract method (shared/api.ts)`);
    if (!e) continue;
    if (!(METHOD_CLASSES as readonly string[]).includes(e.class))
      problems.push(`${m}: unknown class ${String(e.class)}`);
    if (!(REACHES as readonly string[]).includes(e.reach)) problems.push(`${m}: unknown reach ${String(e.reach)}`);
    if (e.asks && !e.targets) problems.push(`${m}: asks for a priority but targets no jobs`);
    for (const [field, rule] of Object.entries(e.fields ?? {})) {
      if (!rule) continue;
      // A field may only narrow: it cannot open a door its method keeps closed.
      const widens = REACH_DOORS[rule.reach].some((d) => !reachOpens(e.reach, d));
      if (widens) problems.push(`${m}.${field}: reach ${rule.reach} is wider than the method's ${e.reach}`);
      if (rule.reach === e.reach)
        problems.push(`${m}.${field}: reach ${rule.reach} is the method's own; the rule narrows nothing`);
    }
  }
  return problems;
}

const problems = methodTableProblems(Object.keys(API_INPUTS), TABLE as unknown as Record<string, AnyMethodEntry>);
if (problems.length > 0) throw new Error(`The method table does not fit the contract:\n${problems.join('\n')}`);

/** The table, typed per method (a new contract method fails to type-check until it has an entry). */
export const METHODS: MethodTable = TABLE;

/** One method's entry, for a method known only at run time. */
export function methodEntry(method: ApiMethod): AnyMethodEntry {
  // The per-method input types meet here: the callers pass the input the method's schema validated.
  return TABLE[method] as unknown as AnyMethodEntry;
}

const ALL_METHODS = Object.keys(TABLE) as ApiMethod[];

/** The methods open at a door. */
export function methodsOpenAt(door: Door): ReadonlySet<ApiMethod> {
  return new Set(ALL_METHODS.filter((m) => reachOpens(TABLE[m].reach, door)));
}

/**
 * Methods a page's transport must refuse — `serve`'s API and the desktop page alike, save what the
 * desktop reach opens to the desktop page (hosting/reach-refusal.ts). The CLI on this machine may call them.
 */
export const LOCAL_ONLY_METHODS: ReadonlySet<ApiMethod> = new Set(
  ALL_METHODS.filter((m) => !reachOpens(TABLE[m].reach, 'network')),
);

/** The contract methods the desktop app's page may call: exactly those its views use (a test reads renderer/). */
export const DESKTOP_PAGE_METHODS: ReadonlySet<ApiMethod> = methodsOpenAt('desktopPage');

/** Each method's class. */
export const METHOD_CLASS: Readonly<Record<ApiMethod, MethodClass>> = Object.fromEntries(
  ALL_METHODS.map((m) => [m, TABLE[m].class]),
) as Record<ApiMethod, MethodClass>;

/** The jobs a call acts on, from its validated input; null for a method on no jobs. */
export function targetedJobs(method: ApiMethod, input: unknown): readonly string[] | null {
  return methodEntry(method).targets?.(input) ?? null;
}

/** The highest priority a call asks for, from its validated input (the rush rule); undefined when it asks none. */
export function askedPriority(method: ApiMethod, input: unknown): Priority | undefined {
  return methodEntry(method).asks?.(input);
}

/**
 * Why a call may not come through this door, in words for the caller, or null when it may. The
 * method's reach first, then each of its fields' (a field is judged by what the caller gave, before
 * validation: a value that is not the field's own is the engine's to refuse as bad input).
 */
export function reachRefusal(door: Door, method: ApiMethod, input: unknown): string | null {
  return entryRefusal(methodEntry(method), door, method, input);
}

/** reachRefusal for a given entry (a table's rules tried on their own in a test). */
export function entryRefusal(entry: AnyMethodEntry, door: Door, method: string, input: unknown): string | null {
  if (!reachOpens(entry.reach, door)) {
    // A method the network may call but no view of the desktop page does.
    if (door === 'desktopPage' && reachOpens(entry.reach, 'network')) {
      return `${method} is not available to the app's page; use the shotfarm command line on this machine.`;
    }
    return `${method} is only available from this machine's command line (shotfarm).`;
  }
  const given = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  for (const [field, rule] of Object.entries(entry.fields ?? {})) {
    if (!rule || !Object.hasOwn(given, field) || given[field] === undefined) continue;
    if (rule.applies && !rule.applies(given[field])) continue;
    if (!reachOpens(rule.reach, door)) return rule.words;
  }
  return null;
}
