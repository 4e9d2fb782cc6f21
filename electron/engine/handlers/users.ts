/**
 * People and their tokens (local-only: the CLI on the farm host), and `session.whoami` (open to
 * every caller: the UI shows only what the role may do). A token is in one answer only — the one
 * that made it — and never in a log or an event.
 */
import type { ApiHandlers } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { RESERVED_ACTORS, type IssuedToken, type PersonView } from '../../../shared/people.js';
import { sessionView } from '../auth/authorize.js';
import { newToken, tokenHash, type TokenBytes } from '../auth/tokens.js';
import { insertUser, listUsers, revokeUser, setUserRole, setUserToken, toPersonView, userByName } from '../store/user-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function userHandlers(ctx: EngineContext, tokenBytes?: TokenBytes): DomainHandlers<'users'> & Pick<ApiHandlers, 'session.whoami'> {
  const person = (name: string): PersonView => {
    const r = userByName(ctx.db, name);
    if (!r) throw new ShotfarmError('not_found', `No person named ${name}; \`shotfarm users list\` shows who there is.`);
    return toPersonView(r);
  };
  return {
    'session.whoami': async (_i, caller) => sessionView(caller),
    'users.list': async () => listUsers(ctx.db).map(toPersonView),
    'users.add': async ({ name, role }): Promise<IssuedToken> => {
      if ((RESERVED_ACTORS as readonly string[]).includes(name.toLowerCase())) {
        throw new ShotfarmError('bad_input', `"${name}" is a name Shotfarm writes for itself in the history; pick another.`);
      }
      const token = newToken(tokenBytes);
      if (!insertUser(ctx.db, name, role, tokenHash(token), ctx.clock.now())) {
        throw new ShotfarmError('conflict', `${name} exists already; \`shotfarm users token ${name}\` gives them a new token.`);
      }
      return { person: person(name), token };
    },
    'users.setRole': async ({ name, role }) => {
      if (!setUserRole(ctx.db, person(name).name, role)) throw new ShotfarmError('not_found', `No person named ${name}.`);
      return person(name);
    },
    'users.revoke': async ({ name }) => {
      revokeUser(ctx.db, person(name).name, ctx.clock.now());
      return person(name);
    },
    'users.token': async ({ name }): Promise<IssuedToken> => {
      const token = newToken(tokenBytes);
      setUserToken(ctx.db, person(name).name, tokenHash(token));
      return { person: person(name), token };
    },
  };
}
