/**
 * People and their tokens (the people class: an admin, in the Settings view or on the farm host's
 * CLI), and `session.whoami` (open to every caller: the UI shows only what the role may do). A token
 * is in one answer only — the one that made it — and never in a log or an event.
 */
import type { ApiHandlers } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { RESERVED_ACTORS, type Caller, type IssuedToken, type PersonView } from '../../../shared/people.js';
import { sessionView } from '../auth/authorize.js';
import { newToken, tokenHash, type TokenBytes } from '../auth/tokens.js';
import {
  insertUser,
  listUsers,
  revokeUser,
  setUserRole,
  setUserToken,
  toPersonView,
  userByName,
} from '../store/user-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function userHandlers(
  ctx: EngineContext,
  tokenBytes?: TokenBytes,
): DomainHandlers<'users'> & Pick<ApiHandlers, 'session.whoami'> {
  const person = (name: string): PersonView => {
    const r = userByName(ctx.db, name);
    if (!r)
      throw new ShotfarmError('not_found', `No person named ${name}; \`shotfarm users list\` shows who there is.`);
    return toPersonView(r);
  };
  // A signed-in admin cannot lock themselves out from a page (the farm host's CLI can still do it).
  // Every page hears that people changed (the People panels refetch, sessions are asked again); never who, nor a token.
  const changed = <T>(answer: T): T => {
    ctx.events.emit('people.changed', { at: ctx.clock.now() });
    return answer;
  };
  const notSelf = (caller: Caller, name: string, what: string): void => {
    if (caller.kind === 'person' && caller.name === name) {
      throw new ShotfarmError(
        'bad_input',
        `You cannot ${what} yourself while signed in; another admin, or \`shotfarm users\` on the farm host, can.`,
      );
    }
  };
  return {
    'session.whoami': async (_i, caller) => sessionView(caller),
    'users.list': async () => listUsers(ctx.db).map(toPersonView),
    'users.add': async ({ name, role }): Promise<IssuedToken> => {
      if ((RESERVED_ACTORS as readonly string[]).includes(name.toLowerCase())) {
        throw new ShotfarmError(
          'bad_input',
          `"${name}" is a name Shotfarm writes for itself in the history; pick another.`,
        );
      }
      const token = newToken(tokenBytes);
      if (!insertUser(ctx.db, name, role, tokenHash(token), ctx.clock.now())) {
        throw new ShotfarmError(
          'conflict',
          `${name} exists already; \`shotfarm users token ${name}\` gives them a new token.`,
        );
      }
      return changed({ person: person(name), token });
    },
    'users.setRole': async ({ name, role }, caller) => {
      if (role !== 'admin') notSelf(caller, person(name).name, 'change the role of');
      if (!setUserRole(ctx.db, person(name).name, role))
        throw new ShotfarmError('not_found', `No person named ${name}.`);
      return changed(person(name));
    },
    'users.revoke': async ({ name }, caller) => {
      notSelf(caller, person(name).name, 'revoke');
      revokeUser(ctx.db, person(name).name, ctx.clock.now());
      return changed(person(name));
    },
    'users.token': async ({ name }): Promise<IssuedToken> => {
      const token = newToken(tokenBytes);
      setUserToken(ctx.db, person(name).name, tokenHash(token));
      return changed({ person: person(name), token });
    },
  };
}
