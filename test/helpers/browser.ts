/**
 * The renderer built with vite's JS API into a temp folder, and Debian's Chromium through
 * playwright-core: shared by the e2e harness and the UI benchmark (which must not load node:test).
 */
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { REPO } from './engine.js';
import { makeTempDir } from './temp-dir.js';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BuiltRenderer {
  dir: string;
  cleanup(): void;
}

export async function buildRenderer(): Promise<BuiltRenderer> {
  const out = makeTempDir('shotfarm-renderer-');
  try {
    await build({ configFile: join(REPO, 'vite.config.ts'), logLevel: 'warn', build: { outDir: out.path, emptyOutDir: true, sourcemap: false } });
  } catch (err) {
    out.cleanup();
    throw err;
  }
  return { dir: out.path, cleanup: out.cleanup };
}

/** `showScrollbars`: keep real scrollbars (Playwright hides them in headless mode by default). */
export function launchBrowser(o: { showScrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS,
    ...(o.showScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
  });
}
