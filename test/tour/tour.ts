/**
 * Walks one signed-in page (or the solo operator's) through the stops at each size: measures what
 * is wrong on every screen (geometry.ts) and, given a folder, saves a screenshot of it. Used by
 * `npm run screenshots` (every stop, every role) and the e2e tour test (a subset, asserted).
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SessionView } from '../../shared/people.js';
import { callAs } from '../helpers/people.js';
import { screenProblems } from './geometry.js';
import type { Stop, Who } from './stops.js';
import type { TourFarm } from './studio-farm.js';

export interface Size {
  width: number;
  height: number;
}

export const SIZES: Size[] = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
];

export interface Screen {
  name: string;
  problems: string[];
  file?: string;
}

/** Two animation frames: the layout after a resize (a fit hook re-renders once) is drawn. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined))))');
}

/** Measures (and, with `dir`, saves) the page as it is now at every size. */
export async function capture(
  page: Page,
  name: string,
  session: SessionView | null,
  sizes: Size[],
  dir?: string,
): Promise<Screen[]> {
  const out: Screen[] = [];
  for (const size of sizes) {
    await page.setViewportSize(size);
    await settled(page);
    const full = `${name}-${size.width}x${size.height}`;
    const problems = await screenProblems(page, session);
    const file = dir ? join(dir, `${full}.png`) : undefined;
    if (file) await page.screenshot({ path: file });
    out.push({ name: full, problems, ...(file ? { file } : {}) });
  }
  return out;
}

/** A page for `who`: the solo operator's (no people yet), or a person signed in by the link `users add` prints. */
export async function openAs(
  browser: Browser,
  t: TourFarm,
  who: Who,
): Promise<{ page: Page; session: SessionView | null; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    bypassCSP: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  let session: SessionView | null = null;
  if (who === 'solo') {
    await page.goto(`${t.server.url}/#/queue`);
  } else {
    const token = t.tokens[who];
    if (!token) throw new Error(`no ${who} on this farm yet (addPeople)`);
    // The sign-in link: the page trades it for an HttpOnly cookie and drops it from the address.
    await page.goto(`${t.server.url}/#signin=${token}`);
    await page.locator('[data-testid="signed-in"]').waitFor();
    const answer = await callAs(t.server.url, token, 'session.whoami', {});
    session = answer.body.result as SessionView;
  }
  await page.locator('[data-connection="online"]').waitFor();
  return { page, session, errors, close: () => context.close() };
}

/** Every stop `who` can reach, at every size. */
export async function tour(
  page: Page,
  who: Who,
  session: SessionView | null,
  t: TourFarm,
  o: { stops: Stop[]; sizes?: Size[]; dir?: string; log?: (line: string) => void },
): Promise<Screen[]> {
  const may = (cls: keyof SessionView['may']) => session === null || session.may[cls] !== 'no';
  const out: Screen[] = [];
  for (const stop of o.stops) {
    if (stop.when && !stop.when(may, who)) continue;
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      await stop.enter(page, t);
    } catch (err) {
      // The screen could not be reached: what the page showed instead is the picture, and the problem.
      const name = `${who}-${stop.name}-unreached`;
      const file = o.dir ? join(o.dir, `${name}.png`) : undefined;
      if (file) await page.screenshot({ path: file });
      const problem = `could not reach the screen: ${(err as Error).message.split('\n')[0]}`;
      o.log?.(`${name}  ✗ ${problem}`);
      out.push({ name, problems: [problem], ...(file ? { file } : {}) });
      await page.keyboard.press('Escape');
      continue;
    }
    const screens = await capture(page, `${who}-${stop.name}`, session, o.sizes ?? SIZES, o.dir);
    for (const s of screens) o.log?.(`${s.name}${s.problems.length ? `  ✗ ${s.problems.join('; ')}` : ''}`);
    out.push(...screens);
    await stop.leave?.(page);
  }
  return out;
}
