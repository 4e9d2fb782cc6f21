/**
 * The permission policy: one pure function of (role, method class, ownership of the targeted jobs,
 * the priority asked for), so the engine, the docs' roles table (docs/studio-farm.md) and the UI's flags all read the same
 * answers. Ownership is counted by the caller (the engine looks up `imported_by`); the policy only
 * says yes, or which sentence to refuse with.
 */
import type { ApiMethod } from './api.js';
import { METHOD_CLASS, methodEntry } from './methods.js';
import { METHOD_CLASSES, type MethodClass, type Role, type SessionView } from './people.js';
import type { Priority } from './priorities.js';

/** Each method's class, from the method table (shared/methods.ts). */
export { METHOD_CLASS };

/**
 * What each role may do with each class: `all`, `own` (only jobs the person imported; with it,
 * priorities up to high), or nothing. Rush is its own class so an artist's bump to rush is refused
 * even on their own job.
 */
type Grant = 'all' | 'own';
const GRANTS: Readonly<Record<Role, Partial<Record<MethodClass, Grant>>>> = {
  artist: { read: 'all', import: 'all', jobActions: 'own', priority: 'own', moveToTop: 'own' },
  operator: {
    read: 'all',
    import: 'all',
    jobActions: 'all',
    priority: 'all',
    rush: 'all',
    moveToTop: 'all',
    workstations: 'all',
    templates: 'all',
    farm: 'all',
    settings: 'all',
    exports: 'all',
  },
  lead: { read: 'all', exports: 'all', approvals: 'all', releases: 'all' },
  admin: Object.fromEntries(METHOD_CLASSES.map((c) => [c, 'all'])) as Record<MethodClass, Grant>,
};

/** Words for each class in a refusal: "artists cannot <words>". */
export const CLASS_WORDS: Readonly<Record<MethodClass, string>> = {
  read: 'read the farm',
  import: 'import shot lists',
  jobActions: 'act on jobs',
  priority: 'change priorities',
  rush: 'make jobs rush',
  moveToTop: 'move jobs to the top',
  workstations: 'manage workstations',
  templates: 'register templates',
  farm: 'pause, stop or resume the farm',
  settings: 'change the farm settings',
  exports: 'export run logs or ledgers',
  approvals: 'approve assets',
  releases: 'freeze releases',
  people: 'manage people and roles',
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
  const entry = methodEntry(req.method);
  const cls = entry.class;
  const grants = GRANTS[req.role];
  const grant = grants[cls];
  if (!grant) return { allowed: false, sentence: `${plural(req.role)} cannot ${CLASS_WORDS[cls]}.` };
  // The rush rule: a method that asks for a priority needs the rush class to ask for rush.
  if (req.priority === 'rush' && entry.asks) {
    const refused = rushRefusal(req.role);
    if (refused) return { allowed: false, sentence: refused };
  }
  if (grant === 'own' && req.others && req.others.count > 0) {
    const verb = entry.verb ?? CLASS_WORDS[cls];
    const which = req.others.of === 1 ? 'that job was' : `${req.others.count} of the ${req.others.of} jobs were`;
    return {
      allowed: false,
      sentence: `${plural(req.role)} cannot ${verb} jobs imported by others (${which} imported by someone else).`,
    };
  }
  return { allowed: true };
}

/**
 * The rush rule's sentence for a role that may not create or ask for rush, else null: also what an
 * import refuses with when its rows (JSON field, CSV column, template default) would store rush jobs.
 */
export function rushRefusal(role: Role): string | null {
  return GRANTS[role].rush === 'all' ? null : `${plural(role)} cannot make jobs rush (up to high).`;
}

/** Whether a role may use a class at all (own jobs count): the UI's flags, the docs' roles table. */
export function mayUse(role: Role, cls: MethodClass): 'all' | 'own' | 'no' {
  return GRANTS[role][cls] ?? 'no';
}

/**
 * Whether a session may call a method at all, asking for `priority` where the method asks for one:
 * what the UI hides or disables (a class granted on one's own jobs stays enabled — the server
 * decides per job). No session known yet: everything shows, and the server still decides.
 */
export function sessionMayCall(
  session: Pick<SessionView, 'may'> | null,
  method: ApiMethod,
  priority?: Priority,
): boolean {
  if (session === null) return true;
  const entry = methodEntry(method);
  if (session.may[entry.class] === 'no') return false;
  return !(priority === 'rush' && entry.asks && session.may.rush === 'no');
}
