/**
 * Issue 27 item 5, in Chromium: on a PostgreSQL farm run by two engines the Workstations view lists
 * both (host, pid, kind, workstations held, last renewal) and every card names the engine driving
 * it; when one engine stops, the panel says so and the cards follow the hand-over. 1280×720 and
 * 1440×900, no sideways scroll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAST } from '../helpers/fast-timings.js';
import { secondEngine } from '../helpers/two-engines.js';
import { shootAtStudioSizes, studioSuite } from './support/studio.js';

const suite = studioSuite();
const LEASE_MS = 3_000;

test('the Workstations view lists the engines sharing a PostgreSQL farm and each card names its engine, through a hand-over', {
  timeout: 120_000,
}, async (ctx) => {
  const studio = await suite.open(
    ctx,
    { store: 'postgres', instances: [{}, {}, {}, {}], config: { leaseMs: LEASE_MS } },
    'workstations',
  );
  const { page, farm } = studio;
  const other = secondEngine(ctx, farm);
  other.startScheduler({ ...FAST, leaseMs: LEASE_MS });
  const mine = farm.engine.leases?.identity.id;
  const theirs = other.leases?.identity.id;
  assert.ok(mine && theirs, 'both engines lease workstations');

  const panel = page.locator('[data-testid="engines-panel"]');
  await panel.locator('tr[data-state="live"]').nth(1).waitFor({ timeout: 30_000 });
  // The two engines split the four workstations, and every card says which one drives it.
  const drivers = `[...document.querySelectorAll('[data-testid="driven-by"]')].map((e) => e.getAttribute('data-engine'))`;
  await page.waitForFunction(
    `(() => { const d = ${drivers}; return d.length === 4 && d.filter((x) => x === ${JSON.stringify(mine)}).length === 2 && d.filter((x) => x === ${JSON.stringify(theirs)}).length === 2; })()`,
    undefined,
    { timeout: 30_000 },
  );
  await shootAtStudioSizes(page, 'farm-engines');

  // One engine stops gracefully: it is listed as stopped, and its workstations' cards name the other.
  await other.close();
  await panel.locator(`tr[data-engine="${theirs}"][data-state="stopped"]`).waitFor({ timeout: 30_000 });
  await page.waitForFunction(
    `(() => { const d = ${drivers}; return d.length === 4 && d.every((x) => x === ${JSON.stringify(mine)}); })()`,
    undefined,
    { timeout: 30_000 },
  );
  assert.match(await panel.locator(`tr[data-engine="${mine}"]`).innerText(), /live[\s\S]*\b4\b/);
  await studio.screenshot('farm-engines-after-stop');
  assert.deepEqual(studio.pageErrors, []);
});
