/**
 * `shotfarm users …` through the contract: add prints the token once (and a second add of the name
 * is a conflict), list shows names and roles but never tokens or hashes, set-role, revoke and token
 * say what they did, and bad input — an unknown role, a reserved or malformed name, an unknown
 * person — is refused in words with the right exit code and changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runServe } from '../../electron/cli/serve-command.js';
import { runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { RESOURCES } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

test('users add, list, set-role, revoke and token, and their refusals', async (ctx) => {
  const data = tempDirFor(ctx);
  const added = await runCli(data, 'users', 'add', 'mira', '--role', 'artist');
  assert.equal(added.code, 0, added.err);
  const token = added.out.split('\n').find((l) => l.startsWith('sft_')) as string;
  assert.match(added.out, /Added mira \(artist\)\. Their personal access token — shown this once/);
  assert.equal((await runCli(data, 'users', 'add', 'Mira', '--role', 'lead')).code, 5, 'names ignore case');
  const badRole = await runCli(data, 'users', 'add', 'otto', '--role', 'boss');
  assert.equal(badRole.code, 3);
  assert.match(badRole.err, /--role must be one of artist, operator, lead, admin; got "boss"/);
  const reserved = await runCli(data, 'users', 'add', 'scheduler', '--role', 'admin');
  assert.equal(reserved.code, 3);
  assert.match(reserved.err, /"scheduler" is a name Shotfarm writes for itself/);
  assert.equal((await runCli(data, 'users', 'add', '../x', '--role', 'admin')).code, 3);

  assert.match((await runCli(data, 'users', 'set-role', 'mira', 'lead')).out, /mira is now lead\./);
  assert.match((await runCli(data, 'users', 'revoke', 'mira')).out, /mira's token is revoked/);
  const fresh = await runCli(data, 'users', 'token', 'mira');
  assert.equal(fresh.code, 0);
  const newToken = fresh.out.split('\n').find((l) => l.startsWith('sft_')) as string;
  assert.ok(newToken && newToken !== token);
  const unknown = await runCli(data, 'users', 'revoke', 'nobody');
  assert.equal(unknown.code, 4);
  assert.match(unknown.err, /No person named nobody/);

  const list = await runCli(data, '--json', 'users', 'list');
  const people = JSON.parse(list.out) as { name: string; role: string; revokedAt: number | null }[];
  assert.deepEqual(
    people.map((p) => [p.name, p.role, p.revokedAt]),
    [['mira', 'lead', null]],
    'a new token makes a revoked person active again',
  );
  assert.ok(!list.out.includes(newToken) && !/[0-9a-f]{64}/.test(list.out));
});

test("users add and users token print a #signin= link to the running serve's address, or to --url; with neither they say to paste the token", async (ctx) => {
  const data = tempDirFor(ctx);
  const alone = await runCli(data, 'users', 'add', 'mira', '--role', 'artist');
  assert.equal(alone.code, 0, alone.err);
  assert.match(alone.out, /paste the token/);
  assert.doesNotMatch(alone.out, /<farm-host>|\?token=/, 'no made-up address, no token in a query');
  const named = await runCli(data, 'users', 'token', 'mira', '--url', 'https://farm.example/');
  const namedToken = named.out.split('\n').find((l) => l.startsWith('sft_')) as string;
  assert.match(named.out, new RegExp(`^Sign-in link .*: https://farm\\.example/#signin=${namedToken}$`, 'm'));

  const lines: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  const serving = runServe(
    { out: (l) => void lines.push(l), err: (l) => void lines.push(l) },
    { listen: '127.0.0.1', port: '0', data, static: join(data, 'no-ui') },
    stopped,
  );
  try {
    const open = await waitUntil(() => lines.find((l) => l.startsWith('Open ')), {
      what: 'serve to print its address',
      timeoutMs: 10_000,
    });
    const base = (/^Open (http:\/\/[^/]+)\//.exec(open) as RegExpExecArray)[1] as string;
    assert.doesNotMatch(open, /\?token=/, 'people are defined: sign in on the page');
    const added = await runCli(data, 'users', 'add', 'otto', '--role', 'operator');
    assert.equal(added.code, 0, added.err);
    const token = added.out.split('\n').find((l) => l.startsWith('sft_')) as string;
    assert.ok(added.out.includes(`${base}/#signin=${token}`), added.out);
    const json = JSON.parse((await runCli(data, '--json', 'users', 'token', 'otto')).out) as {
      token: string;
      signInUrl: string;
    };
    assert.equal(json.signInUrl, `${base}/#signin=${json.token}`);
  } finally {
    stop();
    await serving;
  }
});

test('jobs list --json says who imported each job and who last acted on it (the solo operator: local)', async (ctx) => {
  const data = tempDirFor(ctx);
  assert.equal(
    (
      await runCli(
        data,
        'templates',
        'add',
        `${RESOURCES}templates/keyframe-img2img.json`,
        `${RESOURCES}templates/motion-i2v.json`,
      )
    ).code,
    0,
  );
  assert.equal((await runCli(data, 'import', `${RESOURCES}samples/shot_list.json`)).code, 0);
  let page = JSON.parse((await runCli(data, '--json', 'jobs', 'list')).out) as {
    rows: { id: string; importedBy: string; lastActionBy: string | null }[];
  };
  assert.ok(page.rows.length > 0);
  assert.deepEqual([...new Set(page.rows.map((r) => [r.importedBy, r.lastActionBy].join('/')))], ['local/']);
  const first = page.rows[0]?.id as string;
  assert.equal((await runCli(data, 'hold', first)).code, 0);
  page = JSON.parse((await runCli(data, '--json', 'jobs', 'list')).out) as typeof page;
  assert.equal(page.rows.find((r) => r.id === first)?.lastActionBy, 'local');
});
