/**
 * `shotfarm users add|list|set-role|revoke|token`: the studio's people and their roles, on the farm
 * host (the users methods are local-only: no token, not even an admin's, reaches them over serve).
 * A token is printed once, when it is made; the store keeps only its hash, so it cannot be shown
 * again — `users token NAME` makes a new one and the old one stops working.
 */
import type { Command } from 'commander';
import { ROLES, type IssuedToken, type Role } from '../../shared/people.js';
import { ShotfarmError } from '../../shared/errors.js';
import { printJson, type EngineApi, type Io, type Run } from './context.js';
import { RemoteEngine } from './remote-engine.js';
import { formatTable, formatTime } from './table.js';

function role(value: string): Role {
  const r = value.trim().toLowerCase();
  if (!(ROLES as readonly string[]).includes(r))
    throw new ShotfarmError('bad_input', `--role must be one of ${ROLES.join(', ')}; got "${value}".`);
  return r as Role;
}

/** The address people open: `--url`, else the running `serve`'s own (its lock record says it), else unknown. */
function farmUrl(e: EngineApi, given: string | undefined): string | null {
  const url = given ?? (e instanceof RemoteEngine ? e.holder.serveUrl : null);
  return url ? url.replace(/\/+$/, '') : null;
}

/**
 * The token once, and a sign-in link: `#signin=` is a fragment, never sent to the server nor
 * logged by a proxy, and the page takes it out of the address bar as it signs in (cookie).
 */
function printIssued(io: Io, json: boolean | undefined, issued: IssuedToken, what: string, url: string | null): void {
  if (json) {
    printJson(io, { ...issued, signInUrl: url ? `${url}/#signin=${issued.token}` : null });
    return;
  }
  io.out(
    `${what} ${issued.person.name} (${issued.person.role}). Their personal access token — shown this once, give it to them privately:`,
  );
  io.out(issued.token);
  if (url) io.out(`Sign-in link (signs the browser in, then leaves the address bar): ${url}/#signin=${issued.token}`);
  else
    io.out(
      "They open the farm's address (what `shotfarm serve` prints; --url names it here) and paste the token, or add #signin=<token> to it.",
    );
  io.out('Scripts and the CLI send "Authorization: Bearer <token>".');
}

const URL_HELP = "the address people open (behind a proxy, its https address); default: the running serve's";

export function registerUsers(program: Command, io: Io, run: Run): void {
  const users = program
    .command('users')
    .description('people and roles on this farm (artist, operator, lead, admin) and their access tokens');
  users
    .command('add <name>')
    .description('add a person and print their token once')
    .requiredOption('--role <role>', ROLES.join('|'))
    .option('--url <address>', URL_HELP)
    .action((name: string, o: { role: string; url?: string }) =>
      run(async (e, g) => {
        printIssued(io, g.json, await e.call('users.add', { name, role: role(o.role) }), 'Added', farmUrl(e, o.url));
      }),
    );
  users
    .command('list')
    .description('names, roles, when added and revoked (never tokens)')
    .action(() =>
      run(async (e, g) => {
        const people = await e.call('users.list', {});
        if (g.json) return printJson(io, people);
        if (people.length === 0)
          return io.out(
            'No people defined: serve runs as the one local operator (loopback), or with its printed token.',
          );
        io.out(
          formatTable(
            ['NAME', 'ROLE', 'CREATED', 'REVOKED'],
            people.map((p) => [p.name, p.role, formatTime(p.createdAt), formatTime(p.revokedAt)]),
          ),
        );
      }),
    );
  users
    .command('set-role <name> <role>')
    .description("change a person's role (effective on their next call)")
    .action((name: string, r: string) =>
      run(async (e, g) => {
        const p = await e.call('users.setRole', { name, role: role(r) });
        if (g.json) return printJson(io, p);
        io.out(`${p.name} is now ${p.role}.`);
      }),
    );
  users
    .command('revoke <name>')
    .description('their token stops working at their next call (the history keeps their name)')
    .action((name: string) =>
      run(async (e, g) => {
        const p = await e.call('users.revoke', { name });
        if (g.json) return printJson(io, p);
        io.out(`${p.name}'s token is revoked (at ${formatTime(p.revokedAt)} UTC).`);
      }),
    );
  users
    .command('token <name>')
    .description('a new token for a person (the old one stops working; a revoked person is active again)')
    .option('--url <address>', URL_HELP)
    .action((name: string, o: { url?: string }) =>
      run(async (e, g) => {
        printIssued(io, g.json, await e.call('users.token', { name }), 'New token for', farmUrl(e, o.url));
      }),
    );
}
