import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('Pause dispatch in the top bar: a banner stays (across a reload) until Resume; a stop from the CLI shows in it', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 1_500 } }] });
  const { page, farm } = studio;
  const [first, second] = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }]);
  await farm.waitFor('the first prompt to be on the workstation', () => farm.sims[0]!.counts(first!).received === 1);
  const banner = page.locator('[data-testid="farm-banner"]');
  assert.equal(await banner.count(), 0, 'no banner while the farm runs');

  await page.locator('[data-testid="farm-pause"]').click();
  await page.locator('[data-testid="farm-banner"][data-farm-state="paused"]').waitFor();
  assert.match(
    (await banner.textContent()) ?? '',
    /Farm paused: no new dispatch; running prompts finish — set by Studio UI/,
  );
  await page.locator('[data-testid="farm-stop"]').waitFor();
  await farm.waitForStates([first!], ['completed']);
  assert.equal((await farm.job(second!)).state, 'queued');
  await studio.screenshot('farm-paused');

  await page.reload();
  await page.locator('[data-testid="farm-banner"][data-farm-state="paused"]').waitFor();

  // Another process (the CLI) records a stop; the farm serving this page acts on it and the banner follows.
  assert.equal((await runCli(farm.dir, 'farm', 'stop')).code, 0);
  await page.locator('[data-testid="farm-banner"][data-farm-state="stopped"]').waitFor();
  assert.match((await banner.textContent()) ?? '', /Farm stopped: .* — set by cli/);
  assert.equal(await page.locator('[data-testid="farm-stop"]').count(), 0, 'no Stop button while stopped');

  await banner.getByRole('button', { name: 'Resume farm' }).click();
  await banner.waitFor({ state: 'detached' });
  await page.locator('[data-testid="farm-pause"]').waitFor();
  await farm.waitForStates([second!], ['completed'], 30_000);
  assert.deepEqual(studio.pageErrors, []);
});
