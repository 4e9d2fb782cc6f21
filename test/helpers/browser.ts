/**
 * The renderer built with vite's JS API into a temp folder, and Debian's Chromium through
 * playwright-core: shared by the e2e harness and the UI benchmark (which must not load node:test).
 */
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { REPO } from './engine.js';
import { makeTempDir } from './temp-dir.js';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BuiltRenderer {
  dir: string;
  cleanup(): void;
}

export async function buildRenderer(): Promise<BuiltRenderer> {
  const out = makeTempDir('shotfarm-renderer-');
  try {
    await build({
      configFile: join(REPO, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: out.path, emptyOutDir: true, sourcemap: false },
    });
  } catch (err) {
    out.cleanup();
    throw err;
  }
  return { dir: out.path, cleanup: out.cleanup };
}

/** `showScrollbars`: keep real scrollbars (Playwright hides them in headless mode by default). */
export function launchBrowser(o: { showScrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    ...(o.showScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
  });
}

/** The window size the e2e screenshots and the UI benchmark use. */
export const APP_VIEWPORT = { width: 1440, height: 900 };

export interface AppPage {
  context: BrowserContext;
  page: Page;
  /** Errors the page threw or logged (failed resource loads aside): a run fails on any. */
  errors: string[];
}

/**
 * The Studio in a fresh context at 1440×900 (no cache, no warm page), errors collected, opened at
 * `url` and waited on until it is connected to the engine. `initScript` runs before the app does.
 */
export async function openAppPage(
  browser: Browser,
  url: string,
  o: { timeoutMs?: number; initScript?: string } = {},
): Promise<AppPage> {
  // bypassCSP lets Playwright evaluate wait conditions given as strings; the app's CSP itself is
  // checked by the server tests and the CSP e2e file.
  const context = await browser.newContext({ viewport: APP_VIEWPORT, deviceScaleFactor: 1, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(o.timeoutMs ?? 20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  if (o.initScript) await page.addInitScript(o.initScript);
  await page.goto(url);
  await page.locator('[data-connection="online"]').waitFor();
  return { context, page, errors };
}
