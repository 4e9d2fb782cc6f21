/**
 * `npm run screenshots`: the screenshot tour. Starts a studio-sized demo farm (studio-farm.ts: the
 * headless server and simulated workstations on loopback), then photographs every screen at
 * 1280×720 and 1440×900 — as the solo operator, then signed in as an admin, an operator and an
 * artist (the sign-in link and its cookie), the sign-in page in each refusal state, and every
 * banner (offline workstation, paused, stopped, waiting for storage, server unreachable) — into a
 * new folder under the OS temp dir, printed at the start and the end. Each screen is also measured
 * (geometry.ts); the run lists what it found and exits 1 if anything was. Look at the pictures too:
 * the measures do not see wrong words, empty states or poor contrast.
 *
 *   npm run screenshots                 everything (about 150 screenshots, a few minutes)
 *   npm run screenshots -- artist solo  only these pages (solo, admin, operator, artist, signin, banners)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildRenderer, launchBrowser } from '../helpers/browser.js';
import { STOPS, type Who } from './stops.js';
import { PEOPLE, startTourFarm } from './studio-farm.js';
import { capture, openAs, SIZES, tour, type Screen } from './tour.js';

const PARTS = ['solo', 'admin', 'operator', 'artist', 'signin', 'banners'] as const;

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = asked.filter((a) => !(PARTS as readonly string[]).includes(a));
  if (unknown.length) {
    process.stderr.write(`unknown part ${unknown.join(', ')}: choose from ${PARTS.join(', ')}\n`);
    process.exit(2);
  }
  const want = (p: (typeof PARTS)[number]) => asked.length === 0 || asked.includes(p);
  const dir = mkdtempSync(join(tmpdir(), 'shotfarm-screenshots-'));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`screenshots → ${dir}`);
  const screens: Screen[] = [];
  const errors: string[] = [];
  const built = await buildRenderer();
  const browser = await launchBrowser();
  const t = await startTourFarm(built.dir);
  try {
    if (want('solo')) {
      const solo = await openAs(browser, t, 'solo');
      screens.push(...(await tour(solo.page, 'solo', null, t, { stops: STOPS, dir, log })));
      errors.push(...solo.errors.map((e) => `solo: ${e}`));
      await solo.close();
    }
    await t.addPeople();
    const admin = PEOPLE.find((p) => p.role === 'admin') as (typeof PEOPLE)[number];
    // Paused by a person with a long name: the banner says who.
    await t.farm.engine.call('farm.pause', {}, { kind: 'person', ...admin });
    for (const who of ['admin', 'operator', 'artist'] as const satisfies readonly Who[]) {
      if (!want(who)) continue;
      const p = await openAs(browser, t, who);
      screens.push(...(await tour(p.page, who, p.session, t, { stops: STOPS, dir, log })));
      errors.push(...p.errors.map((e) => `${who}: ${e}`));
      await p.close();
    }
    if (want('signin')) screens.push(...(await signInPages(browser, t, dir, log)));
    if (want('banners')) {
      const p = await openAs(browser, t, 'admin');
      const shot = async (name: string) => {
        const s = await capture(p.page, `banner-${name}`, p.session, SIZES, dir);
        for (const x of s) log(`${x.name}${x.problems.length ? `  ✗ ${x.problems.join('; ')}` : ''}`);
        screens.push(...s);
      };
      await p.page.locator('[data-testid="farm-banner"][data-farm-state="paused"]').waitFor();
      await shot('paused');
      await t.farm.engine.call('farm.stop', {}, { kind: 'person', ...admin });
      await p.page.locator('[data-testid="farm-banner"][data-farm-state="stopped"]').waitFor();
      await shot('stopped');
      errors.push(...(await storageHold(t, p.page, () => shot('storage'))));
      await t.server.close();
      await p.page.locator('[data-testid="server-banner"]').waitFor();
      await shot('stale');
      await p.close();
    }
  } finally {
    await t.close();
    await browser.close();
    built.cleanup();
  }
  const bad = screens.filter((s) => s.problems.length > 0);
  log('');
  log(`${screens.length} screenshots in ${dir}`);
  log(`${bad.length} with problems measured; ${errors.length} page errors`);
  for (const s of bad) log(`  ${s.name}: ${s.problems.join('; ')}`);
  for (const e of errors) log(`  page error: ${e}`);
  process.exit(bad.length || errors.length ? 1 : 0);
}

/** The sign-in page for each way in without a valid sign-in: none yet, a wrong token, a revoked one, signed out. */
async function signInPages(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  t: Awaited<ReturnType<typeof startTourFarm>>,
  dir: string,
  log: (l: string) => void,
): Promise<Screen[]> {
  const out: Screen[] = [];
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    const state = async (reason: string) => {
      await page.locator(`[data-testid="signin-page"][data-reason="${reason}"]`).waitFor();
      const s = await capture(page, `signin-${reason}`, null, SIZES, dir);
      for (const x of s) log(`${x.name}${x.problems.length ? `  ✗ ${x.problems.join('; ')}` : ''}`);
      out.push(...s);
    };
    const paste = async (token: string) => {
      await page.locator('[data-testid="signin-token"]').fill(token);
      await page.locator('[data-testid="signin-submit"]').click();
    };
    await page.goto(`${t.server.url}/#/queue`);
    await state('missing');
    await paste('sft_this-is-not-a-token-anyone-was-given');
    await state('unknown');
    const gone = (await t.farm.engine.call('users.add', { name: 'former.contractor-lookdev', role: 'artist' })).token;
    await t.farm.engine.call('users.revoke', { name: 'former.contractor-lookdev' });
    await paste(gone);
    await state('revoked');
    await paste(t.tokens.operator as string);
    await page.locator('[data-testid="signed-in"]').waitFor();
    await page.locator('[data-testid="sign-out"]').click();
    await state('signed-out');
  } finally {
    await context.close();
  }
  return out;
}

/** The database file made full (SQLite's max_page_count), the farm resumed: it waits for storage and says so. */
async function storageHold(
  t: Awaited<ReturnType<typeof startTourFarm>>,
  page: Page,
  shoot: () => Promise<void>,
): Promise<string[]> {
  const db = t.farm.engine.db;
  const sqlite = db.sqlite;
  if (!sqlite) return ['the storage hold is shown only on a SQLite store'];
  // No free pages left inside the file (a write would reuse them instead of growing it), then no growth.
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('VACUUM');
  sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
  await t.farm.engine.call('farm.resume', {}).catch(() => undefined);
  try {
    await page.locator('[data-testid="farm-banner"][data-farm-state="storage"]').waitFor({ timeout: 30_000 });
    await shoot();
  } catch (err) {
    return [`the storage hold did not show: ${(err as Error).message.split('\n')[0]}`];
  } finally {
    sqlite.pragma('max_page_count = 1073741823');
  }
  return [];
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
