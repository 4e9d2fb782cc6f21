/**
 * The desktop app in studio mode, as far as it runs without Electron: the built page opened from
 * its files (file://, so its requests say `Origin: null` as the app's window does) in Chromium,
 * with a stand-in for the preload bridge that hands it a studio farm's origin and a personal token
 * (window.shotfarm.studioFarm()), against a real `serve` with people on loopback. The page's own
 * desktop client (renderer/client/desktop-client.ts) then opens the farm's events socket and shows
 * its thumbnails by short-lived tickets: no URL it requests carries the token.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startServer } from '../../electron/server/server.js';
import { buildRenderer, CHROMIUM_ARGS, type BuiltRenderer } from '../helpers/browser.js';
import { startFarm } from '../helpers/farm.js';
import { addPerson } from '../helpers/people.js';

let built: BuiltRenderer | undefined;
let browser: Browser | undefined;
before(
  async () => {
    built = await buildRenderer();
    // The app's window loads its module scripts from its own files; a plain Chromium needs leave to.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, '--allow-file-access-from-files'],
    });
  },
  { timeout: 90_000 },
);
after(async () => {
  await browser?.close();
  built?.cleanup();
});

/** What the preload exposes in studio mode, as far as the page's start and its views use it. */
function bridgeScript(origin: string, token: string): string {
  return `window.shotfarm = {
    studioFarm: async () => ({ farm: { origin: ${JSON.stringify(origin)}, token: ${JSON.stringify(token)} }, askJoin: false }),
    subscribe: () => () => undefined,
    importedHere: async () => undefined,
    joinStudio: async () => undefined,
    call: async () => { throw { code: 'unavailable', message: 'no local engine in studio mode', retryable: false }; },
    openShotListDialog: async () => null,
    revealFile: async () => undefined,
    saveExport: async () => null,
  };`;
}

test('the studio-mode desktop page (Origin null) opens its socket and thumbnails by ticket, downloads an export, and no URL it requests carries its token', {
  timeout: 120_000,
}, async (ctx) => {
  if (!built || !browser) throw new Error('not set up');
  const farm = await startFarm({ instances: [{ duration: { fixedMs: 100 } }], config: { prefetch: false } });
  ctx.after(() => farm.close());
  const token = await addPerson(farm.engine, 'mira', 'lead');
  const server = await startServer({ engine: farm.engine });
  ctx.after(() => server.close());
  const ids = await farm.importJobs([{ id: 'sh010' }, { id: 'sh020' }], 'Moonfall', 'ep101');
  await farm.waitForStates(ids, ['completed'], 30_000);

  // The app's window is under its own CSP, which main rewrites to allow the farm (not done here).
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, bypassCSP: true });
  ctx.after(() => context.close());
  await context.addInitScript(bridgeScript(server.url, token));
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const urls: string[] = [];
  context.on('request', (r) => urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.goto(`${pathToFileURL(join(built.dir, 'index.html')).href}#/ledger`);
  await page.locator('[data-connection="online"]').waitFor();
  await page.waitForFunction(
    `[...document.querySelectorAll('.asset img')].filter((i) => i.complete && i.naturalWidth > 0).length >= 2`,
  );
  // An export is fetched from the farm (another origin) and saved from memory (download.ts).
  const exported = await page.evaluate(
    `(async () => { const r = await fetch([...document.querySelectorAll('.asset img')][0].src.replace(/\\/files\\/asset\\/[^?]+/, '/api/export/runlog')); return r.status; })()`,
  );
  assert.equal(exported, 200, 'the files ticket of the thumbnails opens a download too');

  const farmUrls = urls.filter((u) => u.startsWith(server.url) || u.startsWith(server.url.replace('http', 'ws')));
  assert.ok(
    farmUrls.some((u) => /\/api\/events\?ticket=/.test(u)),
    `the socket by ticket: ${farmUrls.filter((u) => u.includes('events')).join(', ')}`,
  );
  assert.ok(
    farmUrls.some((u) => /\/files\/asset\/[^?]+\?ticket=/.test(u)),
    'thumbnails by ticket',
  );
  assert.ok(
    farmUrls.some((u) => u.includes('/api/call/')),
    'calls were made (the token in their header)',
  );
  const leaking = urls.filter((u) => u.includes(token) || /[?&#]token=/.test(u));
  assert.deepEqual(leaking, [], 'no URL carries the token');
  assert.deepEqual(errors, []);
});
