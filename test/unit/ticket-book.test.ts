/**
 * The tickets serve hands out in place of a token in an address (electron/server/ticket-book.ts),
 * on a clock moved by hand: a socket ticket opens once and ends after a minute; a files ticket
 * opens any number of file links for five minutes and nothing else; a revoked token's tickets are
 * dropped; the book stays bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../electron/engine/clock.js';
import { TicketBook } from '../../electron/server/ticket-book.js';

test('a socket ticket gives its token back once, then is spent', () => {
  const book = new TicketBook(new ManualClock());
  const { ticket, expiresInS } = book.issue('socket', 'sft_tok');
  assert.equal(expiresInS, 60);
  assert.match(ticket, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  assert.deepEqual(book.redeem(ticket, 'socket'), { ok: true, token: 'sft_tok' });
  assert.deepEqual(book.redeem(ticket, 'socket'), { ok: false, why: 'unknown' });
});

test('a socket ticket unused for a minute has ended', () => {
  const clock = new ManualClock();
  const book = new TicketBook(clock);
  const { ticket } = book.issue('socket', 'sft_tok');
  clock.advance(60_000);
  assert.deepEqual(book.redeem(ticket, 'socket'), { ok: false, why: 'expired' });
});

test('a files ticket opens file links many times for five minutes, and opens nothing else', () => {
  const clock = new ManualClock();
  const book = new TicketBook(clock);
  const { ticket, expiresInS } = book.issue('files', 'sft_tok');
  assert.equal(expiresInS, 300);
  for (let i = 0; i < 3; i++) assert.deepEqual(book.redeem(ticket, 'files'), { ok: true, token: 'sft_tok' });
  assert.deepEqual(book.redeem(ticket, 'socket'), { ok: false, why: 'wrong-use' });
  clock.advance(299_999);
  assert.equal(book.redeem(ticket, 'files').ok, true);
  clock.advance(1);
  assert.deepEqual(book.redeem(ticket, 'files'), { ok: false, why: 'expired' });
});

test("forget drops the tickets of a token no longer valid, asking once per token, and keeps the others'", () => {
  const book = new TicketBook(new ManualClock());
  const revoked = [book.issue('files', 'sft_gone'), book.issue('socket', 'sft_gone')];
  const kept = book.issue('files', 'sft_kept');
  const asked: (string | null)[] = [];
  book.forget((token) => (asked.push(token), token === 'sft_kept'));
  assert.deepEqual(asked.sort(), ['sft_gone', 'sft_kept']);
  for (const r of revoked) assert.equal(book.redeem(r.ticket, 'files').ok, false);
  assert.equal(book.redeem(kept.ticket, 'files').ok, true);
});

test('the book holds at most its bound: the oldest ticket goes first, and ended ones are swept', () => {
  const clock = new ManualClock();
  const book = new TicketBook(clock, 3);
  const first = book.issue('files', 'a');
  const others = [book.issue('files', 'b'), book.issue('files', 'c'), book.issue('files', 'd')];
  assert.equal(book.size, 3);
  assert.equal(book.redeem(first.ticket, 'files').ok, false, 'the oldest was dropped');
  for (const o of others) assert.equal(book.redeem(o.ticket, 'files').ok, true);
  clock.advance(300_000);
  book.issue('socket', 'e');
  assert.equal(book.size, 1, 'the ended files tickets were swept');
});
