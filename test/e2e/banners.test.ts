/**
 * The banners an operator must not miss stay under the top bar while their cause lasts: a
 * workstation that stopped answering is named (and the banner goes when it answers again), and a
 * server the page cannot reach says that what it shows may be stale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('"N workstations offline" names them until they answer; "server unreachable" says the page may be stale', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{}, {}], config: { probeIntervalMs: 100, probeTimeoutMs: 300 } });
  const { page, farm } = studio;
  await farm.importJobs([{ id: 'sh010' }]);
  farm.sims[1]!.partition(true);
  const offline = page.locator('[data-testid="offline-banner"]');
  await offline.waitFor();
  assert.match(
    (await offline.textContent()) ?? '',
    /^1 workstation offline — sim-1: no work goes to it until it answers\./,
  );
  for (const size of [
    { width: 1280, height: 720 },
    { width: 1440, height: 900 },
  ]) {
    await page.setViewportSize(size);
    await studio.screenshot(`banner-offline-${size.width}x${size.height}`);
  }
  farm.sims[1]!.partition(false);
  await offline.waitFor({ state: 'detached' });

  await studio.server.close();
  const stale = page.locator('[data-testid="server-banner"]');
  await stale.waitFor();
  assert.match(
    (await stale.textContent()) ?? '',
    /^Server unreachable — what you see may be stale \(since \d\d:\d\d:\d\d\)\./,
  );
  assert.equal(await page.locator('[data-connection="offline"]').count(), 1);
  await studio.screenshot('banner-server-unreachable');
  // The page's own failed reconnects are expected here, not errors of the app.
  assert.deepEqual(
    studio.pageErrors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to fetch/.test(e)),
    [],
  );
});
