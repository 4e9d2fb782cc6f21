/**
 * The permission policy: one pure function of (role, method class, ownership of the targeted jobs,
 * the priority asked for), so the engine, the docs' roles table (docs/studio-farm.md) and the UI's flags all read the same
 * answers. Ownership is counted by the caller (the engine looks up `imported_by`); the policy only
 * says yes, or which sentence to refuse with.
 */
import type { ApiMethod } from './api.js';
import { METHOD_CLASSES, type MethodClass, type Role } from './people.js';
import type { Priority } from './priorities.js';

/** Every method's class. A new contract method fails to type-check until it is placed here. */
export const METHOD_CLASS: Readonly<Record<ApiMethod, MethodClass>> = {
  'farm.status': 'read', 'farm.stop': 'farm', 'farm.pause': 'farm', 'farm.resume': 'farm',
  'jobs.list': 'read', 'jobs.get': 'read', 'jobs.ids': 'read', 'jobs.resolveIds': 'read', 'jobs.attempts': 'read',
  'jobs.detail': 'read', 'jobs.preview': 'read', 'jobs.facets': 'read', 'jobs.why': 'read', 'failures.list': 'read',
  'timeline.get': 'read', 'assets.list': 'read', 'assets.file': 'read', 'templates.list': 'read', 'instances.list': 'read',
  'settings.list': 'read', 'settings.get': 'read', 'storage.get': 'read', 'release.verify': 'read', 'session.whoami': 'read',
  'jobs.bump': 'priority', 'jobs.restoreOrder': 'priority', 'jobs.moveToTop': 'moveToTop',
  'jobs.hold': 'jobActions', 'jobs.release': 'jobActions', 'jobs.cancel': 'jobActions', 'jobs.retry': 'jobActions',
  'jobs.newTake': 'jobActions', 'jobs.uncancel': 'jobActions',
  'import.preview': 'import', 'import.commit': 'import', 'uploads.check': 'import',
  'templates.add': 'templates',
  'instances.add': 'workstations', 'instances.addMany': 'workstations', 'instances.update': 'workstations', 'instances.remove': 'workstations',
  'instances.setAdminState': 'workstations', 'instances.probeAll': 'workstations', 'instances.test': 'workstations', 'cloud.addRunpod': 'workstations', 'cloud.updateRunpod': 'workstations', 'cloud.setApiKey': 'settings', 'cloud.spend': 'read',
  'release.freeze': 'releases', 'assets.approve': 'approvals',
  'hooks.list': 'settings', 'hooks.deliveries': 'settings', 'hooks.set': 'settings', 'hooks.add': 'settings', 'hooks.remove': 'settings',
  'settings.set': 'settings', 'settings.reset': 'settings', 'storage.set': 'settings',
  'export.runlog': 'exports', 'export.ledger': 'exports',
  'users.list': 'people', 'users.add': 'people', 'users.setRole': 'people', 'users.revoke': 'people', 'users.token': 'people',
  'db.export': 'people', 'db.import': 'people',
};

/**
 * What each role may do with each class: `all`, `own` (only jobs the person imported; with it,
 * priorities up to high), or nothing. Rush is its own class so an artist's bump to rush is refused
 * even on their own job.
 */
type Grant = 'all' | 'own';
const GRANTS: Readonly<Record<Role, Partial<Record<MethodClass, Grant>>>> = {
  artist: { read: 'all', import: 'all', jobActions: 'own', priority: 'own', moveToTop: 'own' },
  operator: {
    read: 'all', import: 'all', jobActions: 'all', priority: 'all', rush: 'all', moveToTop: 'all', workstations: 'all',
    templates: 'all', farm: 'all', settings: 'all',
  },
  lead: { read: 'all', exports: 'all', approvals: 'all', releases: 'all' },
  admin: Object.fromEntries(METHOD_CLASSES.map((c) => [c, 'all'])) as Record<MethodClass, Grant>,
};

/** Words for each class in a refusal: "artists cannot <words>". */
export const CLASS_WORDS: Readonly<Record<MethodClass, string>> = {
  read: 'read the farm', import: 'import shot lists', jobActions: 'act on jobs', priority: 'change priorities',
  rush: 'make jobs rush', moveToTop: 'move jobs to the top', workstations: 'manage workstations', templates: 'register templates',
  farm: 'pause, stop or resume the farm', settings: 'change the farm settings', exports: 'export run logs or ledgers',
  approvals: 'approve assets', releases: 'freeze releases', people: 'manage people and roles',
};

/** The verb of a job method, for "artists cannot cancel jobs imported by others". */
const JOB_VERBS: Partial<Record<ApiMethod, string>> = {
  'jobs.hold': 'hold', 'jobs.release': 'release', 'jobs.cancel': 'cancel', 'jobs.retry': 'retry', 'jobs.newTake': 'make new takes of',
  'jobs.uncancel': 'uncancel', 'jobs.bump': 'change the priority of', 'jobs.restoreOrder': 'reorder', 'jobs.moveToTop': 'reorder',
};

export interface PermissionRequest {
  role: Role;
  method: ApiMethod;
  /** For job methods: how many of the targeted jobs someone else imported, and how many there are. */
  others?: { count: number; of: number };
  /** For a bump or a restore: the highest priority asked for. */
  priority?: Priority;
}

export type Permission = { allowed: true } | { allowed: false; sentence: string };

const plural = (role: Role): string => `${role}s`;

/** The policy: allowed, or the sentence the caller is refused with. */
export function permission(req: PermissionRequest): Permission {
  const cls = METHOD_CLASS[req.method];
  const grants = GRANTS[req.role];
  const grant = grants[cls];
  if (!grant) return { allowed: false, sentence: `${plural(req.role)} cannot ${CLASS_WORDS[cls]}.` };
  if (req.priority === 'rush' && cls === 'priority' && grants.rush !== 'all') {
    return { allowed: false, sentence: `${plural(req.role)} cannot make jobs rush (up to high).` };
  }
  if (grant === 'own' && req.others && req.others.count > 0) {
    const verb = JOB_VERBS[req.method] ?? CLASS_WORDS[cls];
    const which = req.others.of === 1 ? 'that job was' : `${req.others.count} of the ${req.others.of} jobs were`;
    return { allowed: false, sentence: `${plural(req.role)} cannot ${verb} jobs imported by others (${which} imported by someone else).` };
  }
  return { allowed: true };
}

/** Whether a role may use a class at all (own jobs count): the UI's flags, the docs' roles table. */
export function mayUse(role: Role, cls: MethodClass): 'all' | 'own' | 'no' {
  return GRANTS[role][cls] ?? 'no';
}
