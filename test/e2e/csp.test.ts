/**
 * The app under its own Content-Security-Policy, as an operator gets it: `shotfarm serve` (the real
 * CLI, in a child process) on a fresh data folder, Chromium WITHOUT `bypassCSP` (the other e2e
 * files bypass it for their string wait conditions; this one waits on locators only). The page
 * carries both the server's CSP header and the meta tag shared with the desktop app
 * (electron/main/security.ts CSP_META); every view is opened, a shot list is dropped and imported,
 * and not one CSP violation may be reported. A deliberate violation at the end proves the
 * listener and the policy are live.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSP_META } from '../../electron/main/security.js';
import { REPO } from '../helpers/engine.js';
import { serveChild } from '../helpers/serve-child.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';
import { dropFile, shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// Runs before any of the app's scripts, in the page: every violation is logged with a marker.
const RECORD_VIOLATIONS = `
  document.addEventListener('securitypolicyviolation', (e) => {
    console.warn('csp-violation ' + JSON.stringify({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber }));
  }, true);
`;

test('the served app runs under its CSP (header + the desktop meta tag) without a single violation', {
  timeout: 120_000,
}, async (t) => {
  const data = makeTempDir('shotfarm-csp-');
  t.after(data.cleanup);
  const server = await serveChild(data.path, suite.built.dir);
  t.after(() => stop(server.child));

  // A template the fresh farm can queue jobs on (no workstation: they stay queued).
  const tpl = readFileSync(join(REPO, 'test/fixtures/templates/txt2img.json'), 'utf8');
  const added = await fetch(`${server.url}/api/call/templates.add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: tpl, fileName: 'txt2img.json' }),
  });
  assert.equal(added.status, 200, await added.clone().text());

  const context = await suite.browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: false });
  t.after(() => context.close().catch(() => undefined));
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const console_: string[] = [];
  const pageErrors: string[] = [];
  page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.addInitScript({ content: RECORD_VIOLATIONS });

  const response = await page.goto(`${server.url}/#/queue`);
  const header = response?.headers()['content-security-policy'] ?? '';
  assert.match(header, /default-src/, 'the server sends its CSP header too');
  assert.equal(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'), CSP_META);

  await page.locator('main[data-view="queue"] .view-queue').waitFor();
  const live = page.locator('[data-connection="online"]');
  await live.waitFor();
  assert.equal((await live.textContent())?.trim(), 'Live');

  // Import through the UI: the drop zone, the preview modal, the virtualized table.
  await dropFile(
    page,
    'csp_ep101.json',
    shotList([{ id: 'sh010' }, { id: 'sh020' }, { id: 'sh030' }], 'Cspfall'),
    'application/json',
  );
  await page.locator('[data-testid="import-dialog"]').waitFor();
  await page.locator('[data-row-status="new"]').nth(2).waitFor();
  await page.locator('[data-testid="import-confirm"]').click();
  await page.locator('[data-testid="import-dialog"]').waitFor({ state: 'detached' });
  await page.locator('.row[data-shot="sh030"]').waitFor();

  for (const view of ['workstations', 'failures', 'timeline', 'ledger', 'queue']) {
    await page.locator(`[data-tab="${view}"]`).click();
    await page.locator(`main[data-view="${view}"] section`).first().waitFor();
  }
  await page.locator('[data-testid="add-instance"]').count(); // settle: one more round trip to the page

  const violations = console_.filter((l) => /csp-violation|Content Security Policy/i.test(l));
  assert.deepEqual(violations, [], `CSP violations:\n${violations.join('\n')}`);
  assert.deepEqual(pageErrors, []);

  // The control: an image from another origin is refused, and reported.
  await page.evaluate(
    `document.body.appendChild(Object.assign(document.createElement('img'), { src: 'http://127.0.0.2:9/x.png' }))`,
  );
  await page.locator('img[src="http://127.0.0.2:9/x.png"]').waitFor({ state: 'attached' });
  await waitUntil(() => console_.some((l) => l.includes('csp-violation') && l.includes('img-src')), {
    what: 'the violation report of the control',
    timeoutMs: 10_000,
    detail: () => console_.join('\n'),
    wake: (recheck) => {
      page.on('console', recheck);
      return () => void page.off('console', recheck);
    },
  });
});
