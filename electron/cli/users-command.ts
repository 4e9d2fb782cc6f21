/**
 * `shotfarm users add|list|set-role|revoke|token`: the studio's people and their roles, on the farm
 * host (the users methods are local-only: no token, not even an admin's, reaches them over serve).
 * A token is printed once, when it is made; the store keeps only its hash, so it cannot be shown
 * again — `users token NAME` makes a new one and the old one stops working.
 */
import type { Command } from 'commander';
import { ROLES, type IssuedToken, type Role } from '../../shared/people.js';
import { ShotfarmError } from '../../shared/errors.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable, formatTime } from './table.js';

function role(value: string): Role {
  const r = value.trim().toLowerCase();
  if (!(ROLES as readonly string[]).includes(r)) throw new ShotfarmError('bad_input', `--role must be one of ${ROLES.join(', ')}; got "${value}".`);
  return r as Role;
}

function printIssued(io: Io, json: boolean | undefined, issued: IssuedToken, what: string): void {
  if (json) return printJson(io, issued);
  io.out(`${what} ${issued.person.name} (${issued.person.role}). Their personal access token — shown this once, give it to them privately:`);
  io.out(issued.token);
  io.out('They open the farm at https://<farm-host>:8420/?token=<token>, or send "Authorization: Bearer <token>".');
}

export function registerUsers(program: Command, io: Io, run: Run): void {
  const users = program.command('users').description('people and roles on this farm (artist, operator, lead, admin) and their access tokens');
  users.command('add <name>').description('add a person and print their token once').requiredOption('--role <role>', ROLES.join('|'))
    .action((name: string, o: { role: string }) => run(async (e, g) => {
      printIssued(io, g.json, await e.call('users.add', { name, role: role(o.role) }), 'Added');
    }));
  users.command('list').description('names, roles, when added and revoked (never tokens)').action(() => run(async (e, g) => {
    const people = await e.call('users.list', {});
    if (g.json) return printJson(io, people);
    if (people.length === 0) return io.out('No people defined: serve runs as the one local operator (loopback), or with its printed token.');
    io.out(formatTable(['NAME', 'ROLE', 'CREATED', 'REVOKED'], people.map((p) => [p.name, p.role, formatTime(p.createdAt), formatTime(p.revokedAt)])));
  }));
  users.command('set-role <name> <role>').description('change a person\'s role (effective on their next call)')
    .action((name: string, r: string) => run(async (e, g) => {
      const p = await e.call('users.setRole', { name, role: role(r) });
      if (g.json) return printJson(io, p);
      io.out(`${p.name} is now ${p.role}.`);
    }));
  users.command('revoke <name>').description('their token stops working at their next call (the history keeps their name)')
    .action((name: string) => run(async (e, g) => {
      const p = await e.call('users.revoke', { name });
      if (g.json) return printJson(io, p);
      io.out(`${p.name}'s token is revoked (at ${formatTime(p.revokedAt)} UTC).`);
    }));
  users.command('token <name>').description('a new token for a person (the old one stops working; a revoked person is active again)')
    .action((name: string) => run(async (e, g) => {
      printIssued(io, g.json, await e.call('users.token', { name }), 'New token for');
    }));
}
