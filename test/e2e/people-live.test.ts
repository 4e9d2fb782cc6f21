/**
 * The admin's People panel is live: a person added in another admin's browser, and a role change
 * and a revocation made with `shotfarm users` through the running farm (the engine's own call, as
 * the CLI's control listener makes it), appear in an open panel without a reload. The event that
 * carries the news (people.changed) names no one and carries no token nor hash. Chromium, a real serve.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { peoplePages } from './support/people.js';
import { idleFarmServer, studioSuite } from './support/studio.js';

const suite = studioSuite();

test("an admin's People panel shows another admin's and the CLI's changes without a reload; the event carries no token", {
  timeout: 120_000,
}, async (ctx) => {
  const { farm, server } = await idleFarmServer(ctx, suite.built.dir);
  const sent: string[] = [];
  farm.engine.events.on('people.changed', (p) => void sent.push(JSON.stringify(p)));
  const open = peoplePages(ctx, suite.browser, farm.engine, server.url);
  const ada = await open('ada', 'admin', 'settings');
  const ben = await open('ben', 'admin', 'settings');
  const adaPanel = ada.page.locator('[data-testid="people-panel"]');
  const benPanel = ben.page.locator('[data-testid="people-panel"]');
  await adaPanel.locator('tr[data-person="ben"]').waitFor();

  // Ben adds nina in his browser: Ada's open panel shows her.
  await benPanel.locator('[data-testid="person-name"]').fill('nina');
  await benPanel.locator('[data-testid="person-role"]').selectOption('artist');
  await benPanel.locator('[data-testid="person-add"]').click();
  const token = (await benPanel.locator('[data-testid="issued-token-value"]').innerText()).trim();
  await adaPanel.locator('tr[data-person="nina"]').waitFor();
  assert.equal(await adaPanel.locator('tr[data-person="nina"] [data-action="set-role"]').inputValue(), 'artist');

  // `shotfarm users set-role nina lead`, then `users add omar` and `users revoke nina`, through the running farm.
  await farm.engine.call('users.setRole', { name: 'nina', role: 'lead' });
  await ada.page.waitForFunction(
    `document.querySelector('tr[data-person="nina"] [data-action="set-role"]')?.value === 'lead'`,
  );
  await farm.engine.call('users.add', { name: 'omar', role: 'operator' });
  await adaPanel.locator('tr[data-person="omar"]').waitFor();
  await benPanel.locator('tr[data-person="omar"]').waitFor();
  await farm.engine.call('users.revoke', { name: 'nina' });
  await adaPanel.locator('tr[data-person="nina"][data-revoked="yes"]').waitFor();
  await benPanel.locator('tr[data-person="nina"][data-revoked="yes"]').waitFor();

  assert.ok(sent.length >= 4, `one event per change (${sent.length})`);
  const hash = createHash('sha256').update(token).digest('hex');
  for (const payload of sent) {
    assert.deepEqual(Object.keys(JSON.parse(payload) as object), ['at'], payload);
    assert.ok(!payload.includes(token) && !payload.includes(hash) && !payload.includes('nina'), payload);
  }
  assert.deepEqual(ada.errors, []);
  assert.deepEqual(ben.errors, []);
});
