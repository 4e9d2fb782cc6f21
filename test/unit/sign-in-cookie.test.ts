/** The sign-in cookie's reading and attributes, and the page's reading of a refusal's reason: pure, table-tested. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { cookieValue, overHttps, sessionCookie, sessionCookieName } from '../../electron/server/session-cookie.js';
import { refusalOf } from '../../renderer/client/refusal.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

test('the sign-in cookie is read by its exact name among others, and a broken escape reads as none', () => {
  const name = sessionCookieName(8420);
  assert.equal(name, 'shotfarm_session_8420');
  const cases: [string | undefined, string | null][] = [
    [undefined, null],
    ['', null],
    ['other=1; shotfarm_session_8420=sft_abc; x=y', 'sft_abc'],
    ['shotfarm_session_84200=sft_other_farm', null],
    ['shotfarm_session_8421=sft_other_port', null],
    ['shotfarm_session_8420=', null],
    ['shotfarm_session_8420=%zz', null],
    ['shotfarm_session_8420=sft_a%2Bb', 'sft_a+b'],
  ];
  for (const [header, want] of cases)
    assert.equal(cookieValue(req(header === undefined ? {} : { cookie: header }), name), want, String(header));
});

test('the cookie is HttpOnly, SameSite=Strict, for the whole farm, Secure only over https; signing out expires it', () => {
  assert.equal(sessionCookie('n', 'sft_a+b', false), 'n=sft_a%2Bb; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000');
  assert.equal(sessionCookie('n', 'x', true), 'n=x; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000; Secure');
  assert.equal(sessionCookie('n', null, false), 'n=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
  assert.equal(overHttps(req({}), true), true);
  assert.equal(overHttps(req({ 'x-forwarded-proto': 'https' }), false), true);
  assert.equal(overHttps(req({ 'x-forwarded-proto': 'http' }), false), false);
});

test('a refusal is told apart from other failures only by a 401/429 with a known reason', () => {
  const body = (reason: unknown) => ({
    ok: false,
    error: { code: 'unauthorized', message: 'words', retryable: false, details: { reason } },
  });
  assert.deepEqual(refusalOf(401, body('revoked')), { reason: 'revoked', message: 'words' });
  assert.deepEqual(refusalOf(429, body('slowed')), { reason: 'slowed', message: 'words' });
  assert.equal(refusalOf(403, body('revoked')), null, 'a role that may not is not a sign-in problem');
  assert.equal(refusalOf(401, body('whatever')), null);
  assert.equal(
    refusalOf(401, { ok: false, error: { code: 'bad_input', message: 'shared token', retryable: false } }),
    null,
    "the shared token's 401 has no reason",
  );
  assert.equal(refusalOf(401, null), null);
});
