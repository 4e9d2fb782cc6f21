/**
 * An undo on offer is the person's who did the action, not the page's: an operator holds an
 * artist's job, signs out, and the artist signs in on the same page — she is offered no undo of his
 * hold (no toast button, no ↶ Undo on the action bar, Ctrl+Z does nothing), though the job is hers
 * and the server would let her release it. Chromium against a real serve with people.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { addPerson } from '../helpers/people.js';
import { idleFarmServer, row, shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

async function signIn(page: Page, token: string, who: string): Promise<void> {
  await page.locator('[data-testid="signin-token"]').fill(token);
  await page.locator('[data-testid="signin-submit"]').click();
  await page.locator('[data-testid="signed-in"]', { hasText: who }).waitFor();
}

test("after a sign-out, the next person on the page is not offered the last person's undo", {
  timeout: 120_000,
}, async (ctx) => {
  const { farm, server } = await idleFarmServer(ctx, suite.built.dir);
  const otto = await addPerson(farm.engine, 'otto', 'operator');
  const mira = await addPerson(farm.engine, 'mira', 'artist');
  const caller = { kind: 'person', name: 'mira', role: 'artist' } as const;
  const preview = await farm.engine.call(
    'import.preview',
    { fileName: 'mira.json', content: shotList([{ id: 'sh010' }]) },
    caller,
  );
  const [id] = (await farm.engine.call('import.commit', { previewId: preview.previewId }, caller)).jobIds;

  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 720 }, bypassCSP: true });
  ctx.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}/#/queue`);
  await signIn(page, otto, 'otto (operator)');
  await row(page, 'sh010').click();
  await page.locator('[data-testid="actionbar"] [data-action="hold"]').click();
  await farm.waitFor('the hold', async () => (await farm.job(id as string)).state === 'held');
  await page.locator('[data-testid="undo-last"]').waitFor();

  await page.locator('[data-testid="sign-out"]').click();
  await signIn(page, mira, 'mira (artist)');
  await row(page, 'sh010').waitFor();
  assert.equal(await page.locator('[data-testid="undo-last"]').count(), 0, "no ↶ Undo of otto's hold");
  assert.equal(await page.locator('[data-testid="undo"]').count(), 0, "no toast offering otto's undo");
  await page
    .locator('.queue-table, [data-testid="queue"]')
    .first()
    .click({ trial: true })
    .catch(() => undefined);
  await page.keyboard.press('Control+z');
  // Ctrl+Z would have released it at once; a round trip later it is still held.
  await farm.engine.call('farm.status', {});
  await page.waitForTimeout(500);
  assert.equal((await farm.job(id as string)).state, 'held');
  assert.deepEqual(errors, []);
});
