/**
 * Issue 25 item 6 and build item 3, in Chromium with two or three people signed in at once on one
 * farm: the UI offers each person only what their role may do, instead of refusing at the end.
 * - an artist's bulk cancel of a selection mixing hers and an operator's offers "only my N jobs"
 *   and cancels exactly hers (the Mine filter and the Imported by column tell them apart);
 * - an operator downloads the run log and changes a number setting in the browser;
 * - an artist is shown no farm controls, a disabled Register template saying why, read-only settings,
 *   and an Import of rush rows says she cannot before she confirms (no Import button to be refused);
 * - an admin adds a person (the token shown once works) and revokes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import type { Role } from '../../shared/people.js';
import type { Farm } from '../helpers/farm.js';
import { callAs } from '../helpers/people.js';
import { peopleFarm } from './support/people.js';
import { dropFile, shootAtStudioSizes, shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

/** Jobs imported as a person, through the contract (as their import would). */
async function importAs(farm: Farm, name: string, role: Role, shots: string[], episode: string): Promise<string[]> {
  const p = await farm.engine.call('import.preview', {
    fileName: `${episode}.json`,
    content: shotList(
      shots.map((id) => ({ id })),
      'Moonfall',
      episode,
    ),
  });
  return (await farm.engine.call('import.commit', { previewId: p.previewId }, { kind: 'person', name, role })).jobIds;
}

/** Screenshots at both studio sizes (no sideways scroll at either), the page then back at 1440×900. */
async function shoot(page: Page, name: string): Promise<void> {
  await shootAtStudioSizes(page, name);
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("an artist's bulk cancel of a mixed selection offers and cancels only her own jobs; Mine and Imported by tell them apart", {
  timeout: 120_000,
}, async (ctx) => {
  const f = await peopleFarm(ctx, suite);
  const mine = await importAs(f.farm, 'mira', 'artist', ['sh010', 'sh020', 'sh030'], 'ep-mira');
  const theirs = await importAs(f.farm, 'otto', 'operator', ['sh410', 'sh420', 'sh430', 'sh440'], 'ep-otto');
  const operator = await f.open('otto', 'operator', 'queue');
  const artist = await f.open('mira', 'artist', 'queue');
  const { page } = artist;

  // Who imported each row, and the Mine filter.
  await page.locator('.row[data-shot="sh410"] [data-cell="imported-by"]', { hasText: 'otto' }).waitFor();
  await page.locator('.row[data-shot="sh010"] [data-cell="imported-by"]', { hasText: 'mira' }).waitFor();
  await page.locator('[data-testid="filter-mine"]').click();
  await page.locator('.row[data-shot="sh410"]').waitFor({ state: 'detached' });
  // The filtered page may arrive a moment after the others' rows left: wait for hers before counting.
  for (const shot of ['sh010', 'sh020', 'sh030']) await page.locator(`.row[data-shot="${shot}"]`).waitFor();
  assert.equal(await page.locator('.row[data-job-id]').count(), 3, 'Mine shows her 3 jobs');
  await shoot(page, 'people-artist-mine');
  await page.locator('[data-testid="filter-mine"]').click();
  await page.locator('.row[data-shot="sh410"]').waitFor();

  // Select all seven (a range), then Cancel: the question offers only hers.
  await page.locator('.row[data-index="0"]').click();
  await page.locator('.row[data-index="6"]').click({ modifiers: ['Shift'] });
  await page.locator('.selcount', { hasText: '7 selected' }).waitFor();
  await page.locator('[data-testid="actionbar"] [data-action="cancel"]').click();
  const confirm = page.locator('[data-testid="confirm-dialog"]');
  await confirm.waitFor();
  assert.match(await page.locator('.modal').innerText(), /Cancel only my 3 jobs\?/);
  assert.equal(
    await page.locator('[data-testid="confirm-summary"]').innerText(),
    '4 of the 7 selected jobs were imported by others and are left alone.',
  );
  await shoot(page, 'people-artist-only-mine');
  await page.locator('[data-testid="confirm-yes"]', { hasText: 'Cancel only my 3 jobs' }).click();
  await f.farm.waitForStates(mine, ['cancelled'], 10_000);
  for (const id of theirs) assert.equal((await f.farm.job(id)).state, 'queued', "the operator's jobs are left alone");
  await page.locator('[data-testid="toast"]', { hasText: 'Cancelled 3 jobs' }).waitFor();
  assert.equal(await page.locator('[data-testid="toast"]', { hasText: 'cannot' }).count(), 0, 'nothing was refused');

  // A selection of others' jobs only: Cancel is not offered, and says why on hover.
  await page.locator('.row[data-shot="sh410"]').click();
  const cancel = page.locator('[data-testid="actionbar"] [data-action="cancel"]');
  assert.equal(await cancel.isDisabled(), true);
  assert.equal(
    await cancel.getAttribute('title'),
    'Imported by someone else: artists may cancel only the jobs they imported.',
  );
  // The operator's page, open all along, saw hers go.
  await operator.page.locator('.row[data-shot="sh010"]').waitFor({ state: 'detached' });
  assert.deepEqual([...artist.errors, ...operator.errors], []);
});

test('an operator downloads the run log and the ledger and changes a number setting in the browser; an artist sees the settings read-only', {
  timeout: 120_000,
}, async (ctx) => {
  const f = await peopleFarm(ctx, suite);
  await importAs(f.farm, 'otto', 'operator', ['sh010', 'sh020'], 'ep-otto');
  f.farm.startScheduler();
  const operator = await f.open('otto', 'operator', 'ledger');
  const artist = await f.open('mira', 'artist', 'settings');
  const { page } = operator;
  await f.farm.waitFor(
    'both jobs to complete',
    async () => (await f.farm.engine.call('jobs.list', { filter: { states: ['completed'] } })).total === 2,
    30_000,
  );

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-testid="export-run"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /^shotfarm-runlog-.*\.csv$/);
  const rows = parse(readFileSync(await download.path()), { bom: true, columns: true }) as Record<string, string>[];
  assert.deepEqual(rows.map((r) => `${r.shot}:${r.outcome}:${r.imported_by}`).sort(), [
    'sh010:completed:otto',
    'sh020:completed:otto',
  ]);
  await shoot(page, 'people-operator-export');

  await page.locator('[data-tab="settings"]').click();
  await page.locator('[data-testid="settings-note"].alert-ok').waitFor();
  const input = page.locator('[data-setting-input="retry_attempts"]');
  await input.fill('7');
  await page.locator('[data-setting="retry_attempts"] [data-action="save"]').click();
  await page.locator('[data-testid="toast"]', { hasText: 'retry_attempts is 7' }).waitFor();
  assert.equal((await f.farm.engine.call('settings.get', { key: 'retry_attempts' })).value, 7);
  // A folder setting stays with the farm host's command line.
  assert.equal(await page.locator('[data-setting-input="output_root"]').count(), 0);
  await shoot(page, 'people-operator-settings');

  // The artist, on the same farm at the same time: the values, read-only, and why.
  await artist.page
    .locator('[data-setting="retry_attempts"] [data-testid="setting-value"]', { hasText: '7' })
    .waitFor({ timeout: 10_000 });
  assert.equal(await artist.page.locator('[data-setting-input]').count(), 0);
  assert.match(
    await artist.page.locator('[data-testid="settings-why"]').innerText(),
    /artist\) cannot change the farm settings: operators and admins can/,
  );
  assert.equal(await artist.page.locator('[data-testid="export-run"]').count(), 0);
  assert.deepEqual([...operator.errors, ...artist.errors], []);
});

test('an artist is offered no farm controls, no workstation or people management, Register template disabled saying why, and no Import of rush rows', {
  timeout: 90_000,
}, async (ctx) => {
  const f = await peopleFarm(ctx, suite);
  const operator = await f.open('otto', 'operator', 'settings');
  const artist = await f.open('mira', 'artist', 'settings');
  const { page } = artist;
  await page.locator('[data-testid="settings-register-template"]').waitFor();
  assert.equal(await page.locator('[data-testid="settings-register-template"]').isDisabled(), true);
  assert.equal(
    await page.locator('[data-testid="settings-register-template"]').getAttribute('title'),
    'Your role (artist) cannot register templates: operators and admins can.',
  );
  for (const id of ['farm-pause', 'farm-stop', 'farm-resume'])
    assert.equal(await page.locator(`[data-testid="${id}"]`).count(), 0, id);
  assert.equal(await page.locator('[data-testid="people-panel"]').count(), 0);
  await shoot(page, 'people-artist-settings');
  await page.locator('[data-tab="workstations"]').click();
  await page.locator('.view-workstations').waitFor();
  assert.equal(await page.locator('[data-testid="add-instance"]').count(), 0);

  // A shot list that asks for rush: the Import dialog says she cannot before she confirms, and offers no Import.
  await dropFile(
    page,
    'rush.json',
    shotList([{ id: 'sh010', priority: 'rush' }], 'Moonfall', 'ep-rush'),
    'application/json',
  );
  await page
    .locator('[data-testid="import-refusal"]', { hasText: 'artists cannot make jobs rush (up to high).' })
    .waitFor();
  assert.equal(await page.locator('[data-testid="import-confirm"]').isDisabled(), true);
  await shoot(page, 'people-artist-import-rush');
  await page.keyboard.press('Escape');
  assert.equal((await f.farm.engine.call('jobs.list', {})).total, 0);

  // The operator's page, at the same time: enabled, no people either.
  assert.equal(await operator.page.locator('[data-testid="settings-register-template"]').isDisabled(), false);
  assert.equal(await operator.page.locator('[data-testid="farm-pause"]').count(), 1);
  assert.equal(await operator.page.locator('[data-testid="people-panel"]').count(), 0);
  assert.deepEqual([...operator.errors, ...artist.errors], []);
});

test('an admin adds a person in Settings (the token shown once signs them in), then revokes them; the admin cannot revoke themselves', {
  timeout: 90_000,
}, async (ctx) => {
  const f = await peopleFarm(ctx, suite);
  const artist = await f.open('mira', 'artist', 'queue');
  const admin = await f.open('ada', 'admin', 'settings');
  const { page } = admin;
  const panel = page.locator('[data-testid="people-panel"]');
  await panel.locator('tr[data-person="mira"]').waitFor();
  assert.equal(await panel.locator('tr[data-person="ada"] [data-action="revoke"]').isDisabled(), true);

  await panel.locator('[data-testid="person-name"]').fill('nina');
  await panel.locator('[data-testid="person-role"]').selectOption('operator');
  await panel.locator('[data-testid="person-add"]').click();
  const token = (await panel.locator('[data-testid="issued-token-value"]').innerText()).trim();
  assert.match(token, /^sft_/);
  await panel.locator('tr[data-person="nina"]').waitFor();
  await panel.locator('[data-testid="issued-token"]').scrollIntoViewIfNeeded();
  await shoot(page, 'people-admin-added');
  const who = await callAs(f.server.url, token, 'session.whoami', {});
  assert.equal(who.status, 200);
  assert.deepEqual(
    [(who.body.result as { name: string }).name, (who.body.result as { role: string }).role],
    ['nina', 'operator'],
  );
  await panel.locator('[data-testid="issued-token-done"]').click();
  assert.equal(await panel.locator('[data-testid="issued-token"]').count(), 0, 'the token is shown once');

  await panel.locator('tr[data-person="mira"] [data-action="set-role"]').selectOption('lead');
  await f.farm.waitFor(
    'mira to be a lead',
    async () => (await f.farm.engine.call('users.list', {})).find((p) => p.name === 'mira')?.role === 'lead',
  );

  await panel.locator('tr[data-person="nina"] [data-action="revoke"]').click();
  await page.locator('[data-testid="confirm-ok"]', { hasText: 'Revoke nina' }).click();
  await panel.locator('tr[data-person="nina"][data-revoked="yes"]').waitFor();
  assert.equal((await callAs(f.server.url, token, 'session.whoami', {})).status, 401, 'her token stops working');
  await shoot(page, 'people-admin-revoked');
  // The artist (now a lead) is never shown the people.
  assert.equal(await artist.page.locator('[data-testid="people-panel"]').count(), 0);
  assert.deepEqual(admin.errors, []);
});
