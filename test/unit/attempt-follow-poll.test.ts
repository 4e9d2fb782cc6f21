/**
 * The routine /queue poll of a followed prompt is the safety net for frames the socket missed. While
 * the workstation's socket (the one the prompt was posted with) spoke within the poll interval, the
 * poll waits — at most BUSY_PROBE_SKIPS rounds in a row, so a prompt that ended without a frame is
 * still seen within a bounded time; with a quiet socket, or one reconnected under another client id,
 * it goes out every interval as before. A fake server counts the requests; time is driven by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptFollow } from '../../electron/engine/pools/comfy-lan/attempt-follow.js';
import type { Outcome } from '../../electron/engine/pools/comfy-lan/attempt-scope.js';
import { BUSY_PROBE_SKIPS } from '../../electron/engine/pools/comfy-lan/instance-registry.js';
import { followHarness } from '../helpers/follow-harness.js';

const POLL_MS = 2_000;

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

function setUp() {
  /** The workstation's one socket, as the follow loop reads it (station-socket.ts). */
  const station = { clientId: 'client-1' as string | null, spokeAt: null as number | null };
  const { clock, timers, server, socket, scope } = followHarness({ pollMs: POLL_MS, station, stallTimeoutS: 3_600 });
  let outcome: Outcome | null = null;
  void new AttemptFollow(scope, socket)
    .run()
    .then((o) => (outcome = o))
    .catch(() => undefined);
  /** Runs the loop until `ms` from now; a speaking socket delivers a frame just before every wake-up. */
  const runFor = async (ms: number, speaking: boolean): Promise<void> => {
    const until = clock.now() + ms;
    await settle();
    while (clock.now() < until && outcome === null) {
      if (speaking) station.spokeAt = clock.now();
      timers.fireNext();
      await settle();
    }
  };
  return { clock, server, station, runFor, outcome: () => outcome as Outcome | null };
}

test('while the socket speaks, the /queue poll waits: one poll in BUSY_PROBE_SKIPS + 1 intervals, not one per interval', async () => {
  const f = setUp();
  const rounds = 5 * (BUSY_PROBE_SKIPS + 1);
  await f.runFor(rounds * POLL_MS + 1, true);
  // Old behaviour: one /queue per interval (rounds + the first look); now one in every BUSY_PROBE_SKIPS + 1.
  assert.equal(f.server.count('GET /queue'), rounds / (BUSY_PROBE_SKIPS + 1));
  assert.equal(f.outcome(), null, 'still running');
});

test('a prompt that ended without a frame while the socket kept speaking is still seen within BUSY_PROBE_SKIPS + 1 intervals', async () => {
  const f = setUp();
  await f.runFor(3 * POLL_MS + 1, true); // a few intervals in: some polls already waited
  f.server.historyWritten = true; // the end frames were lost; the socket still speaks (other traffic)
  const endedAt = f.clock.now();
  await f.runFor((BUSY_PROBE_SKIPS + 2) * POLL_MS, true);
  assert.equal(f.outcome()?.kind, 'finished');
  assert.ok(f.clock.now() - endedAt <= (BUSY_PROBE_SKIPS + 1) * POLL_MS, `seen after ${f.clock.now() - endedAt} ms`);
});

test('with a quiet socket the /queue poll goes out every interval and catches a prompt that ended without a frame', async () => {
  const f = setUp();
  f.station.spokeAt = f.clock.now(); // spoke once, at the start, then nothing
  await f.runFor(4 * POLL_MS + 1, false);
  assert.equal(f.server.count('GET /queue'), 4, 'one per interval');
  f.server.historyWritten = true;
  const endedAt = f.clock.now();
  await f.runFor(2 * POLL_MS, false);
  assert.equal(f.outcome()?.kind, 'finished');
  assert.ok(f.clock.now() - endedAt <= POLL_MS, `seen after ${f.clock.now() - endedAt} ms`);
});

test('a socket reconnected under another client id (this prompt gets no frames there) does not hold the poll back', async () => {
  const f = setUp();
  f.station.clientId = 'client-2';
  await f.runFor(4 * POLL_MS + 1, true);
  assert.equal(f.server.count('GET /queue'), 4, 'one per interval although the socket speaks');
});
