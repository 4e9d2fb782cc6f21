/**
 * The screenshot tour's measures as a test (issue 25, "fits the screen"): on the studio-sized farm
 * of `npm run screenshots` (123,456 queued, long names, every kind of workstation, the offline
 * banner; then people and the paused banner), for a subset of its screens at 1280×720 and
 * 1440×900, solo and as an operator and an artist: the page never scrolls sideways, no top-bar
 * item overlaps another or is cut, and no control the role's `session.whoami` forbids is shown
 * enabled (controls carry data-needs=<class>); an artist's group Retry says "Retry all", disabled with why,
 * not "Retry my 0"; a rendering job's drawer shows no queue rank; an idle card says "Nothing rendering" once. The full tour (every screen, every role, pictures
 * to look at) is `npm run screenshots` (docs/testing.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';
import { STOPS } from '../tour/stops.js';
import { OFFLINE_WORKSTATION, PEOPLE, startTourFarm } from '../tour/studio-farm.js';
import { openAs, tour, type Screen } from '../tour/tour.js';

const suite = studioSuite();
const pick = (...names: string[]) => STOPS.filter((s) => names.includes(s.name));

test('every screen of the tour subset fits at 1280×720 and 1440×900 with 123,456 queued, solo and as operator and artist, and shows no control the role may not use', {
  timeout: 150_000,
}, async (ctx) => {
  const t = await startTourFarm(suite.built.dir);
  ctx.after(() => t.close());
  const screens: Screen[] = [];
  const errors: string[] = [];

  const solo = await openAs(suite.browser, t, 'solo');
  ctx.after(() => solo.close());
  await solo.page.waitForFunction(
    `document.querySelector('[data-summary-state="queued"] b')?.textContent === '123,456'`,
    undefined,
    { timeout: 30_000 },
  );
  screens.push(
    ...(await tour(solo.page, 'solo', null, t, {
      stops: pick('queue', 'drawer-running', 'failures', 'workstations', 'ledger', 'stop-farm-confirm'),
    })),
  );
  // A rendering job has no place in the queue, and no "rank 0 within normal" under the dash.
  await solo.page.evaluate(`location.hash = '#/queue/job/${await t.rendering()}'`);
  await solo.page.locator('[data-testid="job-drawer"] [data-testid="drawer-facts"]').waitFor();
  assert.equal((await solo.page.locator('[data-testid="queue-position"]').innerText()).trim(), '—');
  assert.equal(await solo.page.locator('[data-testid="queue-rank"]').count(), 0);
  await solo.page.keyboard.press('Escape');
  // An idle card says so once ("Nothing rendering"), not again as an empty list's "nothing".
  await solo.page.locator('[data-tab="workstations"]').click();
  assert.equal(
    (await solo.page.locator(`[data-instance="${OFFLINE_WORKSTATION}"] .current`).innerText()).trim(),
    'Nothing rendering',
  );
  errors.push(...solo.errors);

  await t.addPeople();
  const admin = PEOPLE.find((p) => p.role === 'admin') as (typeof PEOPLE)[number];
  await t.farm.engine.call('farm.pause', {}, { kind: 'person', ...admin });
  for (const who of ['operator', 'artist'] as const) {
    const p = await openAs(suite.browser, t, who);
    ctx.after(() => p.close());
    await p.page.locator('[data-testid="farm-banner"][data-farm-state="paused"]').waitFor();
    screens.push(
      ...(await tour(p.page, who, p.session, t, {
        stops: pick('queue', 'bulk-cancel', 'workstations', 'ledger', 'export-panel', 'settings'),
      })),
    );
    if (who === 'artist') {
      // None of the failures is hers: the group's button says what it does, disabled with the reason (not "Retry my 0").
      await p.page.locator('[data-tab="failures"]').click();
      const retryAll = p.page.locator('[data-testid="failure-group"] [data-action="retry-all"]').first();
      assert.equal(await retryAll.innerText(), 'Retry all');
      assert.equal(await retryAll.isDisabled(), true);
      assert.match((await retryAll.getAttribute('title')) ?? '', /artists may retry only the jobs they imported/);
    }
    errors.push(...p.errors);
  }

  const seen = new Set(screens.map((s) => s.name.replace(/-\d+x\d+$/, '')));
  for (const name of ['solo-queue', 'solo-stop-farm-confirm', 'operator-export-panel', 'artist-settings'])
    assert.ok(seen.has(name), `${name} was measured`);
  assert.ok(!seen.has('artist-export-panel'), 'an artist has no Export panel to measure');
  assert.deepEqual(
    screens.filter((s) => s.problems.length > 0).map((s) => `${s.name}: ${s.problems.join('; ')}`),
    [],
  );
  assert.deepEqual(errors, []);
});
