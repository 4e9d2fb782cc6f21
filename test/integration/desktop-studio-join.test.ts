/**
 * Joining a studio farm from the desktop (StudioSession, the main side of File → Join Studio
 * Farm…) against a real `serve`: a wrong token or address changes nothing; the right one is kept
 * in the token store, the choice file names the origin only, and the app restarts on it. Studio
 * mode's page gets the farm's origin in its CSP meta tag; its notices are for jobs imported here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFarmChoice } from '../../electron/main/farm-choice.js';
import { JobNotifier } from '../../electron/main/notifications.js';
import { CSP_META } from '../../electron/main/security.js';
import { StudioSession } from '../../electron/main/studio-farm.js';
import { studioNotices } from '../../electron/main/studio-notices.js';
import { studioPageHandler } from '../../electron/main/studio-page.js';
import { MemoryTokenStore } from '../../electron/main/token-store.js';
import { startServer } from '../../electron/server/server.js';
import { makeEngine } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('joining a studio farm: checked with the token before anything is kept; then kept, the origin chosen, the app restarted', async (ctx) => {
  const t = await makeEngine({ templates: false });
  const server = await startServer({ engine: t.engine, token: 'sf-right' });
  const dir = makeTempDir('shotfarm-join-');
  ctx.after(async () => {
    await server.close();
    await t.close();
    dir.cleanup();
  });
  const choiceFile = join(dir.path, 'farm-choice.json');
  const tokens = new MemoryTokenStore();
  let restarts = 0;
  const session = new StudioSession({ choice: null, choiceFile, tokens, restart: () => void restarts++ });
  assert.equal(session.farm(), null, 'no farm joined: "This computer"');
  assert.equal(session.takeJoinRequest(), false);
  session.requestJoin();
  assert.deepEqual(
    [session.takeJoinRequest(), session.takeJoinRequest()],
    [true, false],
    'the first start\'s "Studio Farm…" opens the join form once',
  );
  await assert.rejects(
    session.join(server.url, 'sf-wrong'),
    /Could not join http:\/\/127\.0\.0\.1:\d+: A valid access token is required/,
  );
  await assert.rejects(session.join('ftp://farm', 'sf-right'), /must start with http:\/\/ or https:\/\//);
  await assert.rejects(session.join(server.url, '  '), /Paste your personal token/);
  assert.deepEqual([tokens.read(), existsSync(choiceFile), restarts], [null, false, 0], 'a refused join keeps nothing');
  await session.join(`${server.url}/`, 'sf-right');
  assert.equal(tokens.read(), 'sf-right');
  assert.deepEqual(readFarmChoice(choiceFile), { mode: 'studio', origin: server.url });
  assert.doesNotMatch(readFileSync(choiceFile, 'utf8'), /sf-right/);
  assert.equal(restarts, 1);
  const next = new StudioSession({ choice: readFarmChoice(choiceFile), choiceFile, tokens, restart: () => undefined });
  assert.deepEqual(next.farm(), { origin: server.url, token: 'sf-right' }, 'the next start is on the studio farm');
});

test("studio mode serves the app page with the farm's origin in its CSP meta tag, other files as they are", async (ctx) => {
  const dir = makeTempDir('shotfarm-page-');
  ctx.after(() => dir.cleanup());
  const indexHtml = join(dir.path, 'index.html');
  writeFileSync(
    indexHtml,
    `<html><head><meta http-equiv="Content-Security-Policy" content="${CSP_META}" /></head></html>`,
  );
  const handler = studioPageHandler(indexHtml, 'http://farm:8080', async () => new Response('passed through'));
  const page = await (await handler(new Request(pathToFileURL(indexHtml).href))).text();
  assert.match(page, /connect-src 'self' http:\/\/farm:8080 ws:\/\/farm:8080;/);
  assert.equal(
    await (await handler(new Request(pathToFileURL(join(dir.path, 'assets', 'app.js')).href))).text(),
    'passed through',
  );
});

test('studio mode notifies only about jobs imported in this app', () => {
  const job = (id: string) => ({
    id,
    project: 'Moonfall',
    episode: 'ep101',
    shot: 'sh010',
    stage: 'keyframe',
    take: 1,
    priority: 'rush',
    state: 'completed',
    stateReason: null,
    attempts: 1,
  });
  const message = JSON.stringify({
    type: 'events',
    events: [
      { topic: 'job.changed', payload: { job: job('mine') } },
      { topic: 'job.changed', payload: { job: job('theirs') } },
    ],
  });
  const notices = studioNotices(message, new JobNotifier(), (id) => id === 'mine');
  assert.deepEqual(
    notices.map((n) => [n.jobId, n.title]),
    [['mine', 'Rush shot rendered']],
  );
  assert.deepEqual(
    studioNotices('not json', new JobNotifier(), () => true),
    [],
  );
});
