/**
 * Personal tokens over a real serve: 401 in words without one, with a wrong one and with a revoked
 * one; a revocation or a new token counts on the very next call (no cache); the events socket asks
 * for one too; repeated wrong tokens from one address are slowed down (429, on the injected clock);
 * and no token is ever written to the logs, the event rows, an export or the data folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';
import { runServe } from '../../electron/cli/serve-command.js';
import { startServer } from '../../electron/server/server.js';
import { runCli } from '../helpers/cli.js';
import { makeEngine, RESOURCES } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { nextValue, waitUntil } from '../helpers/wait.js';
import { forEachStore, openTestStore, storeArgs } from '../helpers/test-store.js';

function openSocket(base: string, token: string | null): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/events`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

forEachStore((store) => {
  test(`with people defined: 401 without, with a wrong and with a revoked token; revocation and new tokens count on the next call on ${store}`, async () => {
    const t = await makeEngine({ store });
    const server = await startServer({ engine: t.engine });
    try {
      assert.equal(
        (await callAs(server.url, null, 'farm.status', {})).status,
        200,
        'no people yet: the loopback operator, as before',
      );
      const token = await addPerson(t.engine, 'mira', 'artist');
      assert.match(token, /^sft_[A-Za-z0-9_-]{43}$/);

      const none = await callAs(server.url, null, 'farm.status', {});
      assert.equal(none.status, 401);
      assert.equal(none.body.error?.code, 'unauthorized');
      assert.match(none.body.error?.message ?? '', /personal access token is required/);
      const wrong = await callAs(server.url, `${token.slice(0, -2)}xx`, 'farm.status', {});
      assert.equal(wrong.status, 401);
      assert.match(wrong.body.error?.message ?? '', /not valid/);
      assert.equal((await callAs(server.url, token, 'farm.status', {})).status, 200);
      const who = await callAs(server.url, token, 'session.whoami', {});
      assert.deepEqual(
        { ...(who.body.result as object), may: undefined },
        { name: 'mira', role: 'artist', solo: false, may: undefined },
      );

      assert.equal(await openSocket(server.url, null), 401);
      assert.equal(await openSocket(server.url, 'sft_nope'), 401);
      assert.equal(await openSocket(server.url, token), 'open');

      const live = new WebSocket(`${server.url.replace('http', 'ws')}/api/events`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await new Promise((resolve, reject) => live.once('open', resolve).once('error', reject));
      const liveClosed = new Promise<void>((resolve) => live.once('close', () => resolve()));
      await t.engine.call('users.revoke', { name: 'mira' });
      await nextValue<void>((deliver) => void liveClosed.then(deliver), {
        what: "the revoked person's open events socket to close",
        timeoutMs: 5_000,
      });
      const revoked = await callAs(server.url, token, 'farm.status', {});
      assert.equal(revoked.status, 401, 'revoked: refused on the very next call');
      assert.match(revoked.body.error?.message ?? '', /revoked/);
      assert.equal(await openSocket(server.url, token), 401);

      const fresh = (await t.engine.call('users.token', { name: 'mira' })).token;
      assert.equal((await callAs(server.url, fresh, 'farm.status', {})).status, 200, 'a new token works at once');
      assert.equal((await callAs(server.url, token, 'farm.status', {})).status, 401, 'and the old one does not');

      await t.engine.call('users.setRole', { name: 'mira', role: 'operator' });
      assert.equal(
        (await callAs(server.url, fresh, 'farm.pause', {})).status,
        200,
        'a new role counts on the next call',
      );
      assert.equal(
        (await t.engine.call('farm.status', {})).farmState.by,
        'mira',
        'the farm state names the person, not what they typed',
      );
    } finally {
      await server.close();
      await t.close();
    }
  });

  test(`behind a reverse proxy: a loopback serve takes the proxy's Host and https Origin once people are defined, not before on ${store}`, async () => {
    const t = await makeEngine({ store, templates: false });
    const server = await startServer({ engine: t.engine });
    const proxied = (token: string | null) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(server.url);
        const req = httpRequest(
          {
            host: u.hostname,
            port: u.port,
            path: '/api/call/farm.status',
            method: 'POST',
            headers: {
              host: 'farm.studio.lan',
              origin: 'https://farm.studio.lan',
              'content-type': 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    try {
      assert.equal(await proxied(null), 403, 'no people: only the loopback address is answered');
      const token = await addPerson(t.engine, 'otto', 'operator');
      assert.equal(await proxied(token), 200);
      assert.equal(await proxied(null), 401);
    } finally {
      await server.close();
      await t.close();
    }
  });

  test(`repeated wrong tokens from one address are slowed down, then forgiven after the wait; a good token from it always passes on ${store}`, async () => {
    const t = await makeEngine({ store });
    const server = await startServer({ engine: t.engine, backoff: { free: 2, baseMs: 1_000, maxMs: 8_000 } });
    try {
      const token = await addPerson(t.engine, 'otto', 'operator');
      for (let i = 0; i < 3; i++) assert.equal((await callAs(server.url, 'sft_guess', 'farm.status', {})).status, 401);
      const slowed = await callAs(server.url, 'sft_guess', 'farm.status', {});
      assert.equal(slowed.status, 429, 'the address is closed to wrong tokens until the wait is over');
      assert.match(
        slowed.body.error?.message ?? '',
        /Too many wrong access tokens from this address; try again in 1 s/,
      );
      assert.equal(
        (await callAs(server.url, token, 'farm.status', {})).status,
        200,
        'a good token from the closed address passes',
      );
      assert.equal(
        (await callAs(server.url, 'sft_guess', 'farm.status', {})).status,
        429,
        'a good token does not forgive the address',
      );
      t.clock.advance(1_000);
      assert.equal((await callAs(server.url, 'sft_guess', 'farm.status', {})).status, 401);
      assert.equal(
        (await callAs(server.url, 'sft_guess', 'farm.status', {})).status,
        429,
        'the next wrong one doubled the wait',
      );
      t.clock.advance(2_000);
      assert.equal((await callAs(server.url, 'sft_guess', 'farm.status', {})).status, 401, 'the wait is over');
      assert.equal(
        (await callAs(server.url, null, 'farm.status', {})).status,
        401,
        'a missing token is not counted as a guess',
      );
      assert.equal((await callAs(server.url, token, 'farm.status', {})).status, 200);
    } finally {
      await server.close();
      await t.close();
    }
  });

  test(`a revoked person's open tab behind the same address never locks a valid person out on ${store}`, async () => {
    const t = await makeEngine({ store });
    // The shipped backoff: a reverse proxy gives every browser one address (here: loopback for both).
    const server = await startServer({ engine: t.engine });
    try {
      const ops = await addPerson(t.engine, 'ops1', 'operator');
      const artist = await addPerson(t.engine, 'artist1', 'artist');
      assert.equal((await callAs(server.url, artist, 'farm.status', {})).status, 200);
      await t.engine.call('users.revoke', { name: 'artist1' });
      const hers: number[] = [];
      const his: number[] = [];
      for (let i = 0; i < 30; i++) {
        hers.push((await callAs(server.url, artist, 'farm.status', {})).status);
        his.push((await callAs(server.url, ops, i % 2 ? 'farm.status' : 'jobs.list', {})).status);
      }
      assert.ok(
        hers.every((s) => s === 401 || s === 429),
        `the revoked tab is refused: ${hers.join(',')}`,
      );
      assert.ok(hers.includes(429), 'and slowed down');
      assert.deepEqual(
        his.filter((s) => s !== 200),
        [],
        'every call of the valid person passes',
      );
    } finally {
      await server.close();
      await t.close();
    }
  });

  /** Every file under a folder, as bytes (the database, its WAL, exports). */
  function filesUnder(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    });
  }

  test(`tokens are never written to the serve logs, the event rows, an export or any file of the data folder on ${store}`, async (ctx) => {
    const data = tempDirFor(ctx);
    // On PostgreSQL the rows live in the server, not the data folder: the SQLite copy `export-db`
    // makes of the whole farm (from either store) lands in the folder and is read with the rest.
    const db = storeArgs(await openTestStore(store));
    const added = await runCli(data, ...db, 'users', 'add', 'mira', '--role', 'artist');
    assert.equal(added.code, 0, added.err);
    const artist = added.out.split('\n').find((l) => l.startsWith('sft_')) as string;
    const lead = (await runCli(data, ...db, 'users', 'add', 'lena', '--role', 'lead')).out
      .split('\n')
      .find((l) => l.startsWith('sft_')) as string;
    assert.ok(artist && lead);
    const list = await runCli(data, ...db, 'users', 'list');
    assert.match(list.out, /mira\s+artist/);
    assert.doesNotMatch(list.out, /sft_|[0-9a-f]{64}/, 'users list shows neither tokens nor hashes');

    const lines: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const serving = runServe(
      { out: (l) => void lines.push(l), err: (l) => void lines.push(l) },
      { listen: '127.0.0.1', port: '0', data, static: join(data, 'no-ui'), database: db[1] },
      stopped,
    );
    const open = await waitUntil(() => lines.find((l) => l.startsWith('Open ')), {
      what: 'serve to print its address',
      timeoutMs: 10_000,
    });
    const base = (/^Open (http:\/\/[^/]+)\//.exec(open) as RegExpExecArray)[1] as string;
    try {
      assert.equal(
        (await runCli(data, ...db, 'templates', 'add', `${RESOURCES}templates/keyframe-img2img.json`)).code,
        0,
      );
      const content = JSON.stringify({
        project: 'Moonfall',
        episode: 'ep1',
        shots: [{ id: 'sh010', stage: 'keyframe', template: 'keyframe-img2img', parameters: { prompt: 'x' } }],
      });
      const p = await callAs(base, artist, 'import.preview', { fileName: 'a.json', content });
      const c = await callAs(base, artist, 'import.commit', {
        previewId: (p.body.result as { previewId: string }).previewId,
      });
      const [id] = (c.body.result as { jobIds: string[] }).jobIds;
      assert.equal((await callAs(base, artist, 'jobs.hold', { ids: [id] })).status, 200);
      await callAs(base, 'sft_wrong-token-in-a-log?', 'farm.status', {});
      assert.equal((await callAs(base, lead, 'export.runlog', { path: 'runlog.csv' })).status, 200);
      assert.equal((await runCli(data, ...db, 'export-db', '--out', join(data, 'copy.sqlite'))).code, 0);
    } finally {
      stop();
      await serving;
    }
    const text = lines.join('\n');
    for (const token of [artist, lead]) {
      assert.ok(!text.includes(token), 'not in what serve printed or logged');
      for (const file of filesUnder(data)) assert.ok(!readFileSync(file).includes(token), `not in ${file}`);
    }
    assert.ok(!text.includes('sft_wrong-token-in-a-log'), 'a wrong token is not logged either');
    assert.ok(
      filesUnder(data).some((f) => f.endsWith('runlog.csv')) && filesUnder(data).some((f) => f.endsWith('copy.sqlite')),
      'the exports were made',
    );
  });
});
