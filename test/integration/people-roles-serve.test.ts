/**
 * Every role against every method class, against a real `serve` over loopback with people defined:
 * each class's representative call is allowed (never 401/403) exactly when the permission policy
 * says so, and refused 403 with the policy's sentence otherwise. Classes whose methods are all
 * local-only are refused over serve to every role (the command line's), and run through
 * `engine.call` as the person to prove the policy there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiMethod } from '../../shared/api.js';
import { METHOD_CLASSES, ROLES, type Caller, type MethodClass, type Role } from '../../shared/people.js';
import { mayUse, permission } from '../../shared/permissions.js';
import { startServer } from '../../electron/server/server.js';
import { makeEngine, RESOURCES } from '../helpers/engine.js';
import { addPerson, callAs, threeShotList as shotList } from '../helpers/people.js';

/** One call per class, on the caller's own jobs where the class acts on jobs. */
function representative(cls: MethodClass, own: string[]): { method: ApiMethod; input: unknown } {
  const template = readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8');
  const table: Record<MethodClass, { method: ApiMethod; input: unknown }> = {
    read: { method: 'jobs.list', input: {} },
    import: { method: 'import.preview', input: { fileName: 'x.json', content: shotList('import-check') } },
    jobActions: { method: 'jobs.hold', input: { ids: [own[0]] } },
    priority: { method: 'jobs.bump', input: { ids: [own[1]], priority: 'high' } },
    rush: { method: 'jobs.bump', input: { ids: [own[1]], priority: 'rush' } },
    moveToTop: { method: 'jobs.moveToTop', input: { ids: [own[2]] } },
    workstations: { method: 'instances.probeAll', input: { timeoutMs: 200 } },
    templates: { method: 'templates.add', input: { content: template, fileName: 'keyframe-img2img.json' } },
    farm: { method: 'farm.pause', input: {} },
    settings: { method: 'settings.set', input: { key: 'grace_s', value: '60' } },
    exports: { method: 'export.runlog', input: { path: 'runlog.csv' } },
    approvals: { method: 'assets.approve', input: { ids: ['a'.repeat(16)], approved: true } },
    releases: { method: 'release.freeze', input: { project: 'Moonfall', episode: 'e-none', outDir: 'r1' } },
    people: { method: 'users.list', input: {} },
  };
  return table[cls];
}

/** Classes whose every method is local-only: serve refuses them to everybody. */
const LOCAL_ONLY_CLASSES: ReadonlySet<MethodClass> = new Set(['releases']);

test('every role against every method class over serve: allowed exactly as the policy says, else 403 with its sentence', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  try {
    const tokens = new Map<Role, string>();
    const owned = new Map<Role, string[]>();
    for (const role of ROLES) {
      const token = await addPerson(t.engine, `${role}-1`, role);
      tokens.set(role, token);
    }
    // Each person's own jobs: imported as an operator on their behalf is not theirs, so import as them (the engine,
    // as the person: leads may not import over serve).
    for (const role of ROLES) {
      const caller: Caller = { kind: 'person', name: `${role}-1`, role: 'admin' };
      const preview = await t.engine.call('import.preview', {
        fileName: `${role}.json`,
        content: shotList(`ep-${role}`),
        baseDir: `${RESOURCES}samples`,
      });
      const done = await t.engine.call('import.commit', { previewId: preview.previewId }, caller);
      owned.set(role, done.jobIds);
    }

    for (const role of ROLES) {
      for (const cls of METHOD_CLASSES) {
        const { method, input } = representative(cls, owned.get(role) as string[]);
        const expected = permission({
          role,
          method,
          others: { count: 0, of: 1 },
          ...(cls === 'rush' ? { priority: 'rush' as const } : {}),
        });
        assert.equal(
          expected.allowed,
          mayUse(role, cls) !== 'no',
          `${role} × ${cls}: the representative call is of its class`,
        );
        const answer = await callAs(server.url, tokens.get(role) as string, method, input);
        const what = `${role} × ${cls} (${method}) → ${answer.status} ${answer.body.error?.message ?? ''}`;
        assert.notEqual(answer.status, 401, what);
        if (LOCAL_ONLY_CLASSES.has(cls)) {
          assert.equal(answer.status, 403, what);
          assert.match(answer.body.error?.message ?? '', /only available from this machine's command line/, what);
          const caller: Caller = { kind: 'person', name: `${role}-1`, role };
          const direct = await t.engine.call(method, input, caller).then(
            () => null,
            (err: { code?: string; message: string }) => err,
          );
          if (expected.allowed) assert.notEqual(direct?.code, 'forbidden', `${what}; engine.call: ${direct?.message}`);
          else assert.equal(direct?.message, expected.sentence, what);
        } else if (expected.allowed) {
          assert.notEqual(answer.status, 403, what);
        } else {
          assert.equal(answer.status, 403, what);
          assert.equal(answer.body.error?.code, 'forbidden', what);
          assert.equal(answer.body.error?.message, expected.sentence, what);
        }
      }
    }
  } finally {
    await server.close();
    await t.close();
  }
});

test("an artist's action on another's job, or a selection mixing theirs and others', is refused whole and changes nothing", async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  try {
    const artist = await addPerson(t.engine, 'mira', 'artist');
    const operator = await addPerson(t.engine, 'otto', 'operator');
    const imp = async (token: string, episode: string): Promise<string[]> => {
      const p = await callAs(server.url, token, 'import.preview', {
        fileName: `${episode}.json`,
        content: shotList(episode),
      });
      const c = await callAs(server.url, token, 'import.commit', {
        previewId: (p.body.result as { previewId: string }).previewId,
      });
      return (c.body.result as { jobIds: string[] }).jobIds;
    };
    const mine = await imp(artist, 'ep-mira');
    const theirs = await imp(operator, 'ep-otto');

    const one = await callAs(server.url, artist, 'jobs.cancel', { ids: [theirs[0]] });
    assert.equal(one.status, 403);
    assert.equal(
      one.body.error?.message,
      'artists cannot cancel jobs imported by others (that job was imported by someone else).',
    );
    const mixed = await callAs(server.url, artist, 'jobs.cancel', { ids: [...mine, theirs[0], theirs[1]] });
    assert.equal(mixed.status, 403);
    assert.equal(
      mixed.body.error?.message,
      'artists cannot cancel jobs imported by others (2 of the 5 jobs were imported by someone else).',
    );
    const states = (await t.engine.call('jobs.list', {})).rows.map((r) => r.state);
    assert.deepEqual([...new Set(states)], ['queued'], "nothing was cancelled, not even the artist's own jobs");

    const rush = await callAs(server.url, artist, 'jobs.bump', { ids: [mine[0]], priority: 'rush' });
    assert.equal(rush.status, 403);
    assert.equal(rush.body.error?.message, 'artists cannot make jobs rush (up to high).');
    assert.equal(
      (await callAs(server.url, artist, 'jobs.cancel', { ids: mine })).status,
      200,
      'their own jobs they may cancel',
    );
    assert.equal((await callAs(server.url, operator, 'jobs.bump', { ids: theirs, priority: 'rush' })).status, 200);

    const job = await t.engine.call('jobs.get', { id: mine[0] as string });
    assert.equal(job.importedBy, 'mira');
    assert.equal(job.lastActionBy, 'mira');
    const detail = await t.engine.call('jobs.detail', { id: mine[0] as string });
    assert.deepEqual(
      detail.events.map((e) => e.actor),
      ['mira', 'mira'],
      'the history names who imported and who cancelled',
    );
    assert.equal((await t.engine.call('jobs.get', { id: theirs[0] as string })).lastActionBy, 'otto');
  } finally {
    await server.close();
    await t.close();
  }
});

test('an upload is part of an import: a lead is refused 403 with the policy sentence and nothing is stored; an artist may upload', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  try {
    const lead = await addPerson(t.engine, 'lea', 'lead');
    const artist = await addPerson(t.engine, 'mira', 'artist');
    const body = Buffer.from('plate bytes');
    const sha = createHash('sha256').update(body).digest('hex');
    const put = (token: string) =>
      fetch(`${server.url}/api/uploads/${sha}?name=plate.png`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}` },
        body,
      });
    const refused = await put(lead);
    assert.equal(refused.status, 403);
    assert.equal(
      ((await refused.json()) as { error: { message: string } }).error.message,
      'leads cannot import shot lists.',
    );
    assert.equal(existsSync(join(t.dir, 'uploads', sha)), false, 'nothing stored for the lead');
    // As the import page does: the file is announced first (uploads.check), then sent.
    assert.equal(
      (
        await callAs(server.url, artist, 'uploads.check', {
          files: [{ name: 'plate.png', sha256: sha, size: body.length }],
        })
      ).status,
      200,
    );
    const ok = await put(artist);
    assert.ok(ok.status < 300, `an artist uploads: ${ok.status}`);
    assert.equal(existsSync(join(t.dir, 'uploads', sha)), true);
  } finally {
    await server.close();
    await t.close();
  }
});
