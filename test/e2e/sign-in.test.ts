/**
 * Signing in on a farm with people, in Chromium against a real serve: the sign-in page for each
 * token state (missing, not valid, revoked, valid) instead of a "Server unreachable" banner; the
 * sign-in is remembered by the browser (an HttpOnly cookie no script can read); a token revoked
 * while the page is open returns it to the sign-in page and the top bar stops naming the person; a
 * shared job link opens its job after sign-in; sign-out; the `#signin=` link leaves the address
 * bar; and no URL a signed-in page requests — calls, the events socket, thumbnails, a download —
 * carries the token.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { addPerson } from '../helpers/people.js';
import { SCREENSHOTS, studioSuite } from './support/studio.js';

const suite = studioSuite();

interface PeopleFarm {
  farm: Farm;
  server: RunningServer;
}

async function peopleFarm(ctx: TestContext): Promise<PeopleFarm> {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 100 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  return { farm, server };
}

/** A fresh browser (its own cookies) at a studio size, errors collected. */
async function freshPage(
  ctx: TestContext,
  url: string,
  size = { width: 1280, height: 720 },
): Promise<{ page: Page; errors: string[] }> {
  const context = await suite.browser.newContext({ viewport: size, deviceScaleFactor: 1, bypassCSP: true });
  ctx.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // A refused request (the 401 that brings up the sign-in page) is logged by Chromium as a failed load.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  await page.goto(url);
  return { page, errors };
}

function signInPage(page: Page, reason: string) {
  return page.locator(`[data-testid="signin-page"][data-reason="${reason}"]`);
}

async function paste(page: Page, token: string): Promise<void> {
  await page.locator('[data-testid="signin-token"]').fill(token);
  await page.locator('[data-testid="signin-submit"]').click();
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

test('no token: the sign-in page says one is needed (no "Server unreachable"); a pasted valid token signs in and the browser remembers it in a cookie no script can read', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const token = await addPerson(farm.engine, 'mira', 'lead');
  const { page, errors } = await freshPage(ctx, `${server.url}/#/queue`);
  await signInPage(page, 'missing').waitFor();
  assert.equal(
    await page.locator('[data-testid="server-banner"]').count(),
    0,
    'an auth refusal is not an unreachable server',
  );
  assert.equal(await page.locator('[data-testid="signin-reason"]').count(), 0, 'no token yet is not an error');
  await shoot(page, 'sign-in-1280');
  await page.setViewportSize({ width: 1440, height: 900 });
  await shoot(page, 'sign-in-1440');
  assert.equal(
    await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    true,
    'no sideways scroll',
  );

  await paste(page, token);
  await page.locator('[data-testid="signed-in"]', { hasText: 'mira (lead)' }).waitFor();
  await page.locator('[data-connection="online"]').waitFor();
  for (const [width, height] of [
    [1440, 900],
    [1280, 720],
  ] as const) {
    await page.setViewportSize({ width, height });
    await shoot(page, `signed-in-${width}`);
    assert.equal(
      await page.evaluate(
        `(() => { const t = document.querySelector('.topbar'); return t.scrollWidth <= t.clientWidth; })()`,
      ),
      true,
      `the top bar holds the person and Sign out at ${width}`,
    );
  }
  assert.equal(await page.evaluate('document.cookie'), '', 'the sign-in cookie is HttpOnly');
  assert.equal(
    await page.evaluate('JSON.stringify(sessionStorage) + JSON.stringify(localStorage)'),
    '{}{}',
    'the page keeps no token',
  );

  await page.reload();
  await page.locator('[data-testid="signed-in"]', { hasText: 'mira (lead)' }).waitFor();
  await page.locator('[data-connection="online"]').waitFor();
  assert.equal(await signInPage(page, 'missing').count(), 0, 'remembered across a reload');
  assert.deepEqual(errors, []);
});

test('a wrong token is told as not valid and a revoked one as revoked, on the sign-in page', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const gone = await addPerson(farm.engine, 'gone', 'artist');
  await farm.engine.call('users.revoke', { name: 'gone' });
  const { page, errors } = await freshPage(ctx, `${server.url}/`);
  await signInPage(page, 'missing').waitFor();
  await paste(page, 'sft_this-is-not-a-token');
  await signInPage(page, 'unknown').waitFor();
  await page.locator('[data-testid="signin-reason"]', { hasText: 'not valid' }).waitFor();
  await shoot(page, 'sign-in-not-valid');
  await paste(page, gone);
  await signInPage(page, 'revoked').waitFor();
  await page.locator('[data-testid="signin-reason"]', { hasText: 'revoked' }).waitFor();
  assert.equal(await page.locator('[data-testid="server-banner"]').count(), 0);
  assert.deepEqual(errors, []);
});

test('the #signin= link signs in and leaves the address bar; revoked while open, the page returns to sign-in saying so and the top bar no longer names the person', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const token = await addPerson(farm.engine, 'artist1', 'artist');
  const { page, errors } = await freshPage(ctx, `${server.url}/#signin=${token}`);
  await page.locator('[data-testid="signed-in"]', { hasText: 'artist1 (artist)' }).waitFor();
  await page.locator('[data-connection="online"]').waitFor();
  assert.ok(
    !page.url().includes(token) && !page.url().includes('signin'),
    `the address bar keeps no token: ${page.url()}`,
  );
  // The new tab's about:blank and this page: the link's entry was replaced, not kept behind it.
  assert.equal(await page.evaluate('history.length'), 2, 'nor the history');

  await farm.engine.call('users.revoke', { name: 'artist1' });
  // The events socket is checked every second and closed; the page asks why, and is told.
  await signInPage(page, 'revoked').waitFor();
  assert.equal(await page.locator('[data-testid="signed-in"]').count(), 0, 'the top bar is gone with the farm');
  await shoot(page, 'sign-in-revoked');
  assert.equal(
    await page.locator('[data-testid="server-banner"]').count(),
    0,
    'no "Server unreachable" for a revoked token',
  );

  // A new token signs the same browser in again, as the same person.
  const fresh = (await farm.engine.call('users.token', { name: 'artist1' })).token;
  await paste(page, fresh);
  await page.locator('[data-testid="signed-in"]', { hasText: 'artist1 (artist)' }).waitFor();
  await page.locator('[data-connection="online"]').waitFor();
  assert.deepEqual(errors, []);
});

test('a page opened before the first person was added turns to the sign-in page once people are defined', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const { page, errors } = await freshPage(ctx, `${server.url}/#/queue`);
  await page.locator('[data-connection="online"]').waitFor();
  assert.equal(await signInPage(page, 'missing').count(), 0, 'no people: the loopback operator, no sign-in');
  const token = await addPerson(farm.engine, 'ops1', 'operator');
  await signInPage(page, 'missing').waitFor();
  assert.equal(await page.locator('[data-testid="server-banner"]').count(), 0);
  await paste(page, token);
  await page.locator('[data-testid="signed-in"]', { hasText: 'ops1 (operator)' }).waitFor();
  assert.deepEqual(errors, []);
});

test('a shared job link opened in a new browser shows the sign-in page, then that job after sign-in', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const token = await addPerson(farm.engine, 'otto', 'operator');
  const [id] = await farm.importJobs([{ id: 'sh042' }], 'Moonfall', 'ep101');
  const { page, errors } = await freshPage(ctx, `${server.url}/#/queue/job/${id}`);
  await signInPage(page, 'missing').waitFor();
  await page.getByText('Then opens the job you were sent.').waitFor();
  await paste(page, token);
  await page.locator(`[data-testid="job-drawer"][data-job-id="${id}"]`).waitFor();
  assert.ok(page.url().endsWith(`#/queue/job/${id}`), page.url());
  assert.deepEqual(errors, []);
});

test('sign out returns to the sign-in page, and the browser stays signed out after a reload', {
  timeout: 90_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const token = await addPerson(farm.engine, 'otto', 'operator');
  const { page, errors } = await freshPage(ctx, `${server.url}/`);
  await paste(page, token);
  await page.locator('[data-connection="online"]').waitFor();
  await page.locator('[data-testid="sign-out"]').click();
  await signInPage(page, 'signed-out').waitFor();
  await page.reload();
  await signInPage(page, 'missing').waitFor();
  assert.deepEqual(errors, []);
});

test('no URL a signed-in page requests carries the token: calls, the events socket, thumbnails and a CSV download', {
  timeout: 120_000,
}, async (ctx) => {
  const { server, farm } = await peopleFarm(ctx);
  const token = await addPerson(farm.engine, 'mira', 'lead');
  const ids = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }], 'Moonfall', 'ep101');
  await farm.waitForStates(ids, ['completed'], 30_000);

  const context = await suite.browser.newContext({
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    bypassCSP: true,
    acceptDownloads: true,
  });
  ctx.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const urls: string[] = [];
  // Opened with the link of an older `users add` (?token=, still honoured): every request but that
  // first one — the address the person was handed — is the page's own.
  const link = `${server.url}/?token=${token}#/ledger`;
  context.on('request', (r) => r.url() !== link.split('#')[0] && urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.goto(link);
  await page.locator('[data-connection="online"]').waitFor();
  assert.ok(!page.url().includes(token), 'the link left the address bar');
  // Thumbnails load (by the cookie).
  await page.waitForFunction(
    `[...document.querySelectorAll('.asset img')].filter((i) => i.complete && i.naturalWidth > 0).length >= 2`,
  );
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /^shotfarm-runlog-/);
  // A download's request is not reported as a page request: its URL is the download's.
  urls.push(download.url());
  await download.path();
  await page.evaluate(`location.hash = '#/queue/job/${ids[0]}'`);
  await page.locator(`[data-testid="job-drawer"][data-job-id="${ids[0]}"]`).waitFor();

  assert.ok(
    urls.some((u) => /\/api\/events(\?|$)/.test(u)),
    `the events socket was opened: ${urls.filter((u) => u.includes('events')).join(', ')}`,
  );
  assert.ok(
    urls.some((u) => u.includes('/files/asset/')),
    'thumbnails were requested',
  );
  assert.ok(
    urls.some((u) => u.includes('/api/export/runlog')),
    'the download was requested',
  );
  assert.ok(
    urls.some((u) => u.includes('/api/call/')),
    'calls were made',
  );
  const leaking = urls.filter((u) => u.includes(token) || /[?&#](token|signin)=/.test(u));
  assert.deepEqual(leaking, [], 'no URL carries the token');
});

test("a farm without people keeps today's shared token: the printed ?token= address opens the farm, no sign-in page, and a reload keeps it for the tab", {
  timeout: 90_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 100 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const server = await startServer({
    engine: farm.engine,
    staticDir: suite.built.dir,
    token: 'shared-token-of-this-farm',
  });
  ctx.after(() => server.close());
  const { page, errors } = await freshPage(ctx, `${server.url}/?token=shared-token-of-this-farm#/queue`);
  await page.locator('[data-connection="online"]').waitFor();
  assert.equal(await page.locator('[data-testid="signin-page"]').count(), 0);
  assert.ok(!page.url().includes('shared-token'), 'taken out of the address bar, as before');
  await page.reload();
  await page.locator('[data-connection="online"]').waitFor();
  assert.equal(await page.locator('[data-testid="signin-page"]').count(), 0);
  assert.deepEqual(errors, []);
});

test('a farm without people: no URL the shared-token tab requests carries the token — the socket and thumbnails by ticket, calls by header — and thumbnails, a download and a reload still work', {
  timeout: 120_000,
}, async (ctx) => {
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 100 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const shared = 'shared-token-of-this-farm';
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir, token: shared });
  ctx.after(() => server.close());
  const ids = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }], 'Moonfall', 'ep101');
  await farm.waitForStates(ids, ['completed'], 30_000);

  const context = await suite.browser.newContext({
    viewport: { width: 1280, height: 720 },
    deviceScaleFactor: 1,
    bypassCSP: true,
    acceptDownloads: true,
  });
  ctx.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const urls: string[] = [];
  // The printed address is the one the operator was handed; every other request is the page's own.
  const printed = `${server.url}/?token=${shared}`;
  context.on('request', (r) => r.url() !== printed && urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.goto(`${printed}#/ledger`);
  await page.locator('[data-connection="online"]').waitFor();
  assert.ok(!page.url().includes(shared), 'the token left the address bar');
  await page.waitForFunction(
    `[...document.querySelectorAll('.asset img')].filter((i) => i.complete && i.naturalWidth > 0).length >= 2`,
  );
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /^shotfarm-runlog-/);
  urls.push(download.url());
  await download.path();
  // A reload: the tab kept the token (not in any URL) and asks for fresh tickets.
  await page.reload();
  await page.locator('[data-connection="online"]').waitFor();
  await page.waitForFunction(
    `[...document.querySelectorAll('.asset img')].filter((i) => i.complete && i.naturalWidth > 0).length >= 2`,
  );

  assert.ok(
    urls.filter((u) => /\/api\/events\?ticket=/.test(u)).length >= 2,
    `the events socket opened by ticket, again after the reload: ${urls.filter((u) => u.includes('events')).join(', ')}`,
  );
  assert.ok(
    urls.some((u) => /\/files\/asset\/[^?]+\?ticket=/.test(u)),
    'thumbnails by ticket',
  );
  assert.ok(
    urls.some((u) => /\/api\/export\/runlog\?.*ticket=/.test(u)),
    'the download by ticket',
  );
  assert.ok(
    urls.some((u) => u.includes('/api/call/')),
    'calls were made',
  );
  const leaking = urls.filter((u) => u.includes(shared) || /[?&#](token|signin)=/.test(u));
  assert.deepEqual(leaking, [], 'no URL carries the token');
  assert.deepEqual(errors, []);
});
