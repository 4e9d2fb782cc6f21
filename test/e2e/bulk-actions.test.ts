/**
 * Safe bulk actions: Ctrl+A selects what the filter shows, Delete on it asks first — naming the
 * renders it would interrupt — and cancels nothing until confirmed; every bulk action's toast offers
 * its Undo (a hold is released again, a cancel of jobs that had not started is taken back); the
 * selection drops what a filter hides; Stop farm asks first and says what is rendering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Farm } from '../helpers/farm.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();
const shots = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({ id: `sh${String((from + i) * 10).padStart(3, '0')}` }));
const cancelledCount = async (farm: Farm) =>
  (await farm.engine.call('jobs.list', { filter: { states: ['cancelled'] } })).total;

test('Ctrl+A then Delete asks first, naming the running renders, cancels nothing until confirmed, and Undo takes back the cancel of those that had not started', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 30_000 } }, { duration: { fixedMs: 30_000 } }],
  });
  const { page, farm } = studio;
  const ids = await farm.importJobs(shots(8));
  await page.waitForFunction(
    `document.querySelectorAll('.row[data-state="running"]').length === 2 && document.querySelectorAll('.row[data-state="queued"]').length === 6`,
  );
  const running = (await farm.engine.call('jobs.list', { filter: { states: ['running'] } })).rows;

  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '8 selected' }).waitFor();
  await page.keyboard.press('Delete');
  const dialog = page.locator('[data-testid="confirm-dialog"]');
  await dialog.waitFor();
  assert.equal(
    await page.locator('[data-testid="confirm-summary"]').textContent(),
    'Cancel 8 jobs: 2 are rendering now and will be interrupted.',
  );
  const details = (await dialog.locator('.confirm-details').textContent()) ?? '';
  for (const r of running)
    assert.ok(details.includes(`${r.shot} · keyframe · take 1 on `), `names ${r.shot}: ${details}`);
  assert.match(details, /Selected: 6 queued, 2 running\./);
  assert.equal(await cancelledCount(farm), 0, 'nothing is cancelled while the question is open');
  await page.keyboard.press('Delete');
  assert.equal(await dialog.count(), 1, 'a second Delete does not answer it');
  await studio.screenshot('confirm-cancel');
  // The focus is on Go back: a stray Enter goes back. (Looked at before Enter: the dialog closes
  // either way, and a cancel sent by a wrong focus could land after the count below.)
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("data-testid") ?? null'), 'confirm-no');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await cancelledCount(farm), 0, 'Enter cancelled nothing');
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.keyboard.press('Delete');
  await dialog.waitFor();
  await studio.screenshot('confirm-cancel-1280x720');
  await page.locator('[data-testid="confirm-no"]').click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await cancelledCount(farm), 0, 'going back cancels nothing');
  await page.setViewportSize({ width: 1440, height: 900 });

  await page.keyboard.press('Delete');
  await page.locator('[data-testid="confirm-yes"]').click();
  await farm.waitForStates(ids, ['cancelled']);
  // The Active view no longer shows them, so they left the selection.
  await page.locator('.selcount', { hasText: 'No selection' }).waitFor();
  const toast = page.locator('[data-testid="toast"]', { hasText: 'Cancelled 8 jobs.' });
  await toast.locator('[data-testid="undo"]').click();
  const waiting = ids.filter((id) => !running.some((r) => r.id === id));
  await farm.waitForStates(waiting, ['queued', 'running']);
  for (const r of running)
    assert.equal((await farm.job(r.id)).state, 'cancelled', 'an interrupted render stays cancelled');
  await page.locator('[data-testid="toast"]', { hasText: 'Undone: 6 jobs back where they were.' }).waitFor();
  assert.equal(await toast.count(), 0);
  assert.deepEqual(studio.pageErrors, []);
});

test('a bulk hold is undone from its toast; a filter drops the rows it hides from the selection', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  const moonfall = await farm.importJobs(shots(3), 'Moonfall', 'ep101');
  const moonlight = await farm.importJobs(shots(3, 4), 'Moonlight', 'ep101');
  await page.waitForFunction(`document.querySelectorAll('.row[data-state="queued"]').length === 6`);

  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '6 selected' }).waitFor();
  await page.keyboard.press('h');
  await farm.waitForStates([...moonfall, ...moonlight], ['held']);
  const toast = page.locator('[data-testid="toast"]', { hasText: 'Held 6 jobs.' });
  await toast.waitFor();
  await studio.screenshot('undo-hold');
  await toast.locator('[data-testid="undo"]').click();
  await farm.waitForStates([...moonfall, ...moonlight], ['queued']);
  await page.locator('[data-testid="toast"]', { hasText: 'Undone: 6 jobs released again.' }).waitFor();

  // Selected: all six. A project typed by its start shows three; the other three leave the selection.
  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '6 selected' }).waitFor();
  await page.locator('[data-testid="filter-project"]').fill('moonl');
  await page.waitForFunction(`document.querySelectorAll('.row[data-job-id]').length === 3`);
  await page.locator('.selcount', { hasText: '3 selected' }).waitFor();
  const suggestions = page.locator('[data-testid="filter-project-suggestions"] li');
  await suggestions.first().waitFor();
  assert.deepEqual(await suggestions.allTextContents(), ['Moonlight3']);
  await studio.screenshot('filter-suggestions');
  await suggestions.first().click();
  await page.locator('[data-testid="filter-project"].input-exact').waitFor();
  // Ctrl+A selects only what the filter shows.
  await page.locator('body').click({ position: { x: 5, y: 500 } });
  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '3 selected' }).waitFor();
  await page.keyboard.press('h');
  await farm.waitForStates(moonlight, ['held']);
  for (const id of moonfall) assert.equal((await farm.job(id)).state, 'queued', 'a hidden job is never acted on');
  assert.deepEqual(studio.pageErrors, []);
});

test('Stop farm asks first and says what is rendering; Pause dispatch is beside it', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 30_000 } }] });
  const { page, farm } = studio;
  const [id] = await farm.importJobs(shots(2));
  await farm.waitForStates([id!], ['running']);
  await page.locator('[data-testid="farm-pause"]').waitFor();
  await page.locator('[data-testid="farm-stop"]').click();
  const summary = page.locator('[data-testid="confirm-summary"]');
  await summary.waitFor();
  assert.match(
    (await summary.textContent()) ?? '',
    /^Stop the farm: 1 prompt is rendering now and will be interrupted and put back in the queue\./,
  );
  assert.match((await page.locator('.confirm-details').textContent()) ?? '', /sh010 · keyframe · take 1 on sim-0/);
  await studio.screenshot('confirm-stop-farm');
  await page.locator('[data-testid="confirm-no"]').click();
  assert.equal((await farm.engine.call('farm.status', {})).farmState.state, 'running', 'going back stops nothing');
  await page.locator('[data-testid="farm-stop"]').click();
  await page.locator('[data-testid="confirm-yes"]').click();
  await page.locator('[data-testid="farm-banner"][data-farm-state="stopped"]').waitFor();
  await farm.waitForStates([id!], ['queued']);
  assert.deepEqual(studio.pageErrors, []);
});

test('a stop confirmed after another render started is refused and asked again, naming it: no render is interrupted unnamed', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, {
    instances: [{ duration: { fixedMs: 60_000 } }, { duration: { fixedMs: 60_000 } }],
  });
  const { page, farm } = studio;
  const second = (await farm.engine.call('instances.list', {})).find((i) => i.name === 'sim-1')!;
  await farm.engine.call('instances.setAdminState', { id: second.id, adminState: 'disabled' });
  const [first, next] = await farm.importJobs(shots(2));
  await farm.waitForStates([first!], ['running']);
  await page.locator('[data-testid="farm-stop"]').click();
  await page.locator('[data-testid="confirm-summary"]').waitFor();
  assert.match((await page.locator('.confirm-details').textContent()) ?? '', /sh010 · keyframe · take 1 on sim-0/);
  // While the question is open, the second workstation comes back and takes the second shot.
  await farm.engine.call('instances.setAdminState', { id: second.id, adminState: 'active' });
  await farm.waitForStates([next!], ['running']);
  await page.locator('[data-testid="confirm-yes"]').click();
  await page
    .locator('[data-testid="toast"]', {
      hasText: 'The farm was not stopped: sh020/keyframe started rendering after you were asked.',
    })
    .waitFor();
  assert.equal(
    (await farm.engine.call('farm.status', {})).farmState.state,
    'running',
    'the unnamed render was not interrupted',
  );
  // Asked again, now naming both.
  await page.waitForFunction(
    `/sh020 · keyframe · take 1 on sim-1/.test(document.querySelector('.confirm-details')?.textContent ?? '')`,
  );
  await studio.screenshot('confirm-stop-asked-again');
  await page.locator('[data-testid="confirm-yes"]').click();
  await page.locator('[data-testid="farm-banner"][data-farm-state="stopped"]').waitFor();
  await farm.waitForStates([first!, next!], ['queued']);
  assert.deepEqual(studio.pageErrors, []);
});

test('an undo outlives its toast on the action bar, newest first, and Ctrl+Z takes it back; one no longer possible leaves', {
  timeout: 60_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}], start: false });
  const { page, farm } = studio;
  const ids = await farm.importJobs(shots(3), 'Moonfall', 'ep101');
  await page.waitForFunction(`document.querySelectorAll('.row[data-state="queued"]').length === 3`);
  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '3 selected' }).waitFor();
  await page.keyboard.press('h');
  await farm.waitForStates(ids, ['held']);
  const undoLast = page.locator('[data-testid="undo-last"]');
  await undoLast.waitFor();
  assert.match((await undoLast.textContent()) ?? '', /Undo\s*Held 3 jobs/);
  // The toast can go (closed, or after its 15 s): the action bar keeps the undo.
  await page.locator('[data-testid="toast"]', { hasText: 'Held 3 jobs.' }).locator('[aria-label="Dismiss"]').click();
  await page.locator('[data-testid="toast"]', { hasText: 'Held 3 jobs.' }).waitFor({ state: 'detached' });
  assert.equal(await undoLast.count(), 1);
  await studio.screenshot('undo-on-action-bar');
  await page.keyboard.press('Control+z');
  await farm.waitForStates(ids, ['queued']);
  await undoLast.waitFor({ state: 'detached' });

  // Held again, then released by someone else: nothing left to undo, so the offer leaves by itself.
  await page.keyboard.press('Control+a');
  await page.locator('.selcount', { hasText: '3 selected' }).waitFor();
  await page.keyboard.press('h');
  await farm.waitForStates(ids, ['held']);
  await undoLast.waitFor();
  await farm.engine.call('jobs.release', { ids });
  await undoLast.waitFor({ state: 'detached' });
  assert.deepEqual(studio.pageErrors, []);
});
