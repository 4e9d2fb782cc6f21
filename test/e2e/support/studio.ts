/**
 * E2E harness: builds the renderer once per file (test/helpers/browser.ts), starts a real
 * engine with simulator workstations (test/helpers/farm.ts) and the headless server on port 0, and
 * drives Debian's Chromium through playwright-core. Waits are on conditions with deadlines.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../../electron/server/server.js';
import { startFarm, type Farm, type FarmOptions } from '../../helpers/farm.js';
import { REPO } from '../../helpers/engine.js';
import { buildRenderer, launchBrowser, openAppPage, type BuiltRenderer } from '../../helpers/browser.js';

export const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');

export interface Studio {
  farm: Farm;
  server: RunningServer;
  page: Page;
  /** Errors the page threw or logged: a test fails on any. */
  pageErrors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openStudio(
  browser: Browser,
  staticDir: string,
  farmOptions: FarmOptions,
  view = 'queue',
): Promise<Studio> {
  // One prompt per workstation unless a test asks for prefetch: the views' counts (running rows,
  // "N prompts rendering") are then the renders, which is what these tests look at.
  const farm = await startFarm({ ...farmOptions, config: { prefetch: false, ...farmOptions.config } });
  const server = await startServer({ engine: farm.engine, staticDir, demoLabel: 'Demo farm' });
  const { context, page, errors: pageErrors } = await openAppPage(browser, `${server.url}/#/${view}`);
  return {
    farm,
    server,
    page,
    pageErrors,
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
    },
    async close() {
      await context.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      await farm.close();
    },
  };
}

/** A farm that dispatches nothing (no workstation, not started) behind a real serve, both closed when the test ends: the people tests' set-up. */
export async function idleFarmServer(
  ctx: TestContext,
  staticDir: string,
): Promise<{ farm: Farm; server: RunningServer }> {
  const farm = await startFarm({ instances: [], start: false });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, staticDir });
  ctx.after(() => server.close());
  return { farm, server };
}

/** Drops a file on the window the way a desktop drag does: dragenter, dragover, drop with a DataTransfer. */
export async function dropFile(
  page: Page,
  name: string,
  content: string | Buffer,
  type = 'application/octet-stream',
): Promise<void> {
  const b64 = Buffer.from(content).toString('base64');
  // A string so this file needs no DOM types (the root tsconfig is Node-only); runs in the page.
  const args = JSON.stringify({ name, b64, type });
  await page.evaluate(`(() => {
    const { name, b64, type } = ${args};
    // A plain loop: Uint8Array.from(string, fn) walks the string's iterator, one string per
    // character — 3.6 s for a 9.5 MB shot list on a loaded machine, against 0.2 s for this.
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name, { type }));
    for (const kind of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(kind, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  })()`);
}

/** A Shotfarm JSON shot list on the fixture template the simulator runs (txt2img). */
export function shotList(
  shots: { id: string; priority?: string; steps?: number }[],
  project = 'Moonfall',
  episode = 'ep101',
): string {
  return JSON.stringify({
    project,
    episode,
    shots: shots.map((s) => ({
      id: s.id,
      stage: 'keyframe',
      template: 'txt2img',
      ...(s.priority ? { priority: s.priority } : {}),
      parameters: { prompt: `shot ${s.id}`, steps: s.steps ?? 8 },
    })),
  });
}

export function row(page: Page, shot: string) {
  return page.locator(`.row[data-shot="${shot}"]`);
}

/** The two window sizes the studio-scale tests look at: the smallest studio screen, then a common one. */
export const STUDIO_SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
] as const;

/**
 * Screenshots of the page at both studio sizes (`<name>-<w>x<h>.png`), each after checking that the
 * page does not scroll sideways at that size; `ready` runs after each resize (e.g. to scroll a
 * panel into view). The page is left at the last size.
 */
export async function shootAtStudioSizes(page: Page, name: string, ready?: () => Promise<void>): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const size of STUDIO_SIZES) {
    const { width: w, height: h } = size;
    await page.setViewportSize(size);
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;
    assert.ok(overflow <= 0, `${name} at ${w}×${h}: ${overflow} px sideways`);
    await ready?.();
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${w}x${h}.png`) });
  }
}

/** The Queue reloaded at `size`, once its first row is painted (a first paint at that width). */
export async function queueAt(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.reload();
  await page.locator('.row[data-job-id]').first().waitFor();
}

/**
 * The Queue reloaded at `size` with its side panel `panel` (a test id) open: its `toggle` is
 * clicked when that width starts the panel closed.
 */
export async function queueWithPanel(
  page: Page,
  size: { width: number; height: number },
  panel: string,
  toggle: string,
): Promise<void> {
  await queueAt(page, size);
  if (!(await page.locator(`[data-testid="${panel}"]`).isVisible()))
    await page.locator(`[data-testid="${toggle}"]`).click();
}

/**
 * The set-up every e2e file shares: the renderer built once for the file and one Chromium, both
 * cleaned up after it. Read `suite.built` / `suite.browser` inside tests (they exist after `before`).
 */
export interface StudioSuite {
  readonly built: BuiltRenderer;
  readonly browser: Browser;
  /** The Studio on a fresh farm for one test, closed when the test ends. */
  open(ctx: TestContext, farmOptions: FarmOptions, view?: string): Promise<Studio>;
}

export function studioSuite(): StudioSuite {
  let built: BuiltRenderer | undefined;
  let browser: Browser | undefined;
  before(
    async () => {
      built = await buildRenderer();
      browser = await launchBrowser();
    },
    { timeout: 90_000 },
  );
  after(async () => {
    await browser?.close();
    built?.cleanup();
  });
  const suite: StudioSuite = {
    get built() {
      if (!built) throw new Error('the renderer is not built yet (use suite.built inside a test)');
      return built;
    },
    get browser() {
      if (!browser) throw new Error('the browser is not running yet (use suite.browser inside a test)');
      return browser;
    },
    async open(ctx, farmOptions, view) {
      const studio = await openStudio(suite.browser, suite.built.dir, farmOptions, view);
      ctx.after(() => studio.close());
      return studio;
    },
  };
  return suite;
}
