/**
 * People and roles: who calls the contract (a person with a role, or the solo operator), the
 * method classes a role is granted, and what the users methods answer. What each role may do is
 * the policy in permissions.ts.
 */
import { z } from 'zod';

export const ROLES = ['artist', 'operator', 'lead', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

/** Actors the engine itself writes; what they do is not a person's action (jobs.last_action_by). */
export const SYSTEM_ACTORS: ReadonlySet<string> = new Set(['system', 'scheduler', 'recovery']);

/** A person's name: what events, jobs and the run log show as who did it. */
export const personNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a name is letters, digits, ".", "_" or "-", starting with a letter or digit');

/** Names the engine writes itself; a person may not take one (the run log could not tell them apart). */
export const RESERVED_ACTORS = ['local', 'system', 'scheduler', 'import', 'recovery', 'operator'] as const;

/**
 * Who is calling. `local`: this machine's CLI, the solo desktop app, `serve` on loopback with no
 * people defined — today's one local operator, who may do everything. `person`: a token holder.
 */
export type Caller = { kind: 'local' } | { kind: 'person'; name: string; role: Role };
export const LOCAL_CALLER: Caller = { kind: 'local' };

/** The name written as the actor of what a caller did. */
export function actorName(caller: Caller): string {
  return caller.kind === 'local' ? 'local' : caller.name;
}

/** What a method does, for the policy: a role is granted classes, never single methods. */
export const METHOD_CLASSES = [
  'read',
  'import',
  'jobActions',
  'priority',
  'rush',
  'moveToTop',
  'workstations',
  'templates',
  'farm',
  'settings',
  'exports',
  'approvals',
  'releases',
  'people',
] as const;
export type MethodClass = (typeof METHOD_CLASSES)[number];

/** `session.whoami`: who the page acts as, and which classes it may use (`own`: only on their own jobs). */
export interface SessionView {
  name: string;
  role: Role;
  /** True for the solo operator (no people defined, or this machine): the UI shows no sign-in. */
  solo: boolean;
  may: Record<MethodClass, 'all' | 'own' | 'no'>;
}

/** A person as `users.list` shows them: never a token or its hash. */
export interface PersonView {
  name: string;
  role: Role;
  createdAt: number;
  revokedAt: number | null;
}

/** A person just given a token: the one time it is shown. */
export interface IssuedToken {
  person: PersonView;
  token: string;
}
