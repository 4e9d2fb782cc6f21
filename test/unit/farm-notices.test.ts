/**
 * What one engine tells the others (notices/): changes coalesced into one NOTIFY per window, the
 * first after a quiet spell sent on the next turn, ids past the cap said as "re-read", and payloads
 * that are not notices refused. No database: the outbox's `send` records what it would NOTIFY.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeNotice, type FarmNotice, JOBS_CAP, parseNotice } from '../../electron/engine/notices/farm-notice.js';
import { NoticeOutbox, WINDOW_MS } from '../../electron/engine/notices/notice-outbox.js';
import { FakeTime } from '../helpers/fake-time.js';

function outbox() {
  const time = new FakeTime(1_000);
  const sent: FarmNotice[] = [];
  const told: string[] = [];
  /** The turn's end, run by the test (`turnEnds`). */
  const soon: (() => void)[] = [];
  const turnEnds = () => {
    for (const fn of soon.splice(0)) fn();
  };
  const box = new NoticeOutbox({
    from: 'engine-a',
    timers: time,
    now: () => time.now(),
    soon: (fn) => soon.push(fn),
    send: (p) => sent.push(parseNotice(p) as FarmNotice),
    told: (ids) => told.push(...ids),
  });
  return { time, sent, told, box, turnEnds };
}

test('changes within one window leave as one notice; the first after a quiet spell leaves without waiting a window', () => {
  const { time, sent, box, turnEnds } = outbox();
  box.jobs(['j1']);
  box.jobs(['j2', 'j1']);
  box.farm();
  assert.deepEqual(time.waiting(), [], 'no timer: the first change leaves when this turn is over');
  assert.equal(sent.length, 0);
  turnEnds();
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0]?.jobs, ['j1', 'j2']);
  assert.equal(sent[0]?.farm, true);
  assert.equal(sent[0]?.from, 'engine-a');

  // Right after a notice, the next changes wait for the window's end, together.
  time.advance(2);
  box.jobs(['j3']);
  box.settings();
  box.instance('w1');
  assert.deepEqual(time.waiting(), [WINDOW_MS - 2]);
  time.advance(WINDOW_MS);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1]?.jobs, ['j3']);
  assert.deepEqual(sent[1]?.instances, ['w1']);
  assert.equal(sent[1]?.settings, true);
  assert.equal(sent[1]?.farm, false);
  assert.equal(box.sent, 2);
});

test('more jobs than the cap in one window are said as "re-read", and every one is still told to the inbox', () => {
  const { sent, told, box, turnEnds } = outbox();
  const ids = Array.from({ length: JOBS_CAP + 1 }, (_, i) => `job-${i}`);
  box.jobs(ids.slice(0, 50));
  box.jobs(ids.slice(50));
  turnEnds();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.reread, true);
  assert.deepEqual(sent[0]?.jobs, []);
  assert.equal(told.length, ids.length);
});

test('flush sends what is pending at once (an engine closing), and nothing when nothing is', () => {
  const { time, sent, box, turnEnds } = outbox();
  box.flush();
  assert.equal(sent.length, 0);
  box.templates();
  box.flush();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.templates, true);
  turnEnds();
  assert.equal(sent.length, 1, 'the turn-end send finds nothing left');
  box.settings();
  box.flush();
  assert.deepEqual(time.waiting(), [], 'no timer left behind');
});

test('a notice fits a NOTIFY payload: 100 job ids and 100 workstation ids, or "re-read" past that', () => {
  const uuid = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, '0')}`;
  const full: FarmNotice = {
    from: uuid(0),
    jobs: Array.from({ length: JOBS_CAP }, (_, i) => uuid(i)),
    reread: false,
    settings: true,
    farm: false,
    instances: Array.from({ length: 150 }, (_, i) => uuid(i)),
    allInstances: false,
    templates: false,
  };
  const text = encodeNotice(full);
  assert.ok(Buffer.byteLength(text) < 8_000, `${Buffer.byteLength(text)} bytes`);
  const back = parseNotice(text);
  assert.equal(back?.allInstances, true, '150 workstations are "all"');
  assert.equal(back?.jobs.length, JOBS_CAP);
  assert.equal(back?.settings, true);
});

test('payloads that are not notices are refused (another program on the channel, a newer engine)', () => {
  for (const p of ['', 'hello', '{}', '{"e":""}', '{"e":"x","j":"a"}', '{"e":"x","zz":1}', '[1]', 'null'])
    assert.equal(parseNotice(p), null, p);
  assert.deepEqual(parseNotice('{"e":"x","r":1}')?.reread, true);
});
