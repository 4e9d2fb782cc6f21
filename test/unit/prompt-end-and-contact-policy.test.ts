/**
 * The pure rules of an attempt's end and of lost contact: which WebSocket frames say "ask the
 * server now" (the ones after the history write), how fast a check that came too early asks again,
 * when contact counts as lost and when the attempt is given up, and the words for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ComfyFailure } from '../../electron/engine/comfy/observation.js';
import type { FollowEvent } from '../../electron/engine/comfy/ws-events.js';
import {
  afterFailedAsk,
  contactLoss,
  isSilence,
  nextAskAfterSilence,
} from '../../electron/engine/pools/comfy-lan/contact.js';
import {
  END_RECHECK_MS,
  endCue,
  endRecheckDelay,
  type CueState,
  type EndCue,
} from '../../electron/engine/pools/comfy-lan/prompt-end.js';
import { lostContactWords } from '../../shared/live-attempt.js';

const P = 'prompt-1';
const ctx = (inRun: boolean, clientId = 'posted') => ({ connection: 1, clientId, inRun });
const frames = {
  success: { type: 'execution_success', data: { prompt_id: P, timestamp: 1 }, ...ctx(true) },
  error: {
    type: 'execution_error',
    data: { prompt_id: P, node_id: '3', node_type: 'KSampler', exception_message: 'x', exception_type: 'RuntimeError' },
    ...ctx(true),
  },
  interrupted: {
    type: 'execution_interrupted',
    data: { prompt_id: P, node_id: '3', node_type: 'KSampler' },
    ...ctx(true),
  },
  finishedNull: { type: 'executing', data: { node: null, prompt_id: P }, ...ctx(true) },
  node: { type: 'executing', data: { node: '3', prompt_id: P }, ...ctx(true) },
  statusOwn: { type: 'status', data: { status: { exec_info: { queue_remaining: 1 } } }, ...ctx(true) },
  statusForeign: {
    type: 'status',
    data: { status: { exec_info: { queue_remaining: 1 } } },
    ...ctx(false, 'fresh-after-restart'),
  },
  olderRunSuccess: { type: 'execution_success', data: { prompt_id: P, timestamp: 1 }, ...ctx(false) },
} as unknown as Record<string, FollowEvent>;

const cueCases: { frame: string; state: CueState; cue: EndCue; why: string }[] = [
  {
    frame: 'success',
    state: { endSeen: false, postedWith: 'posted' },
    cue: 'soon',
    why: 'success comes before the history write',
  },
  { frame: 'error', state: { endSeen: false, postedWith: 'posted' }, cue: 'soon', why: 'so does an error' },
  { frame: 'interrupted', state: { endSeen: false, postedWith: 'posted' }, cue: 'soon', why: 'and an interrupt' },
  {
    frame: 'statusOwn',
    state: { endSeen: true, postedWith: 'posted' },
    cue: 'now',
    why: 'the status of the history write',
  },
  {
    frame: 'finishedNull',
    state: { endSeen: true, postedWith: 'posted' },
    cue: 'now',
    why: 'executing {node:null} follows the write',
  },
  {
    frame: 'finishedNull',
    state: { endSeen: false, postedWith: 'posted' },
    cue: 'now',
    why: 'even when the end message was lost',
  },
  {
    frame: 'statusOwn',
    state: { endSeen: false, postedWith: 'posted' },
    cue: null,
    why: 'a queue change before our end says nothing',
  },
  {
    frame: 'statusForeign',
    state: { endSeen: false, postedWith: null },
    cue: 'now',
    why: 'a recovered attempt only gets broadcasts',
  },
  {
    frame: 'statusForeign',
    state: { endSeen: false, postedWith: 'posted' },
    cue: 'now',
    why: 'after a reconnect, too',
  },
  { frame: 'node', state: { endSeen: false, postedWith: 'posted' }, cue: null, why: 'a node starting is progress' },
  {
    frame: 'olderRunSuccess',
    state: { endSeen: false, postedWith: 'posted' },
    cue: null,
    why: 'an older run of the same id is fenced out',
  },
];

for (const c of cueCases) {
  test(`end cue: ${c.frame} → ${c.cue ?? 'nothing'} (${c.why})`, () => {
    assert.equal(endCue(frames[c.frame] as FollowEvent, c.state), c.cue);
  });
}

test('a check that finds the prompt still queued after its end asks again in milliseconds, doubling, well under a second in all, then polls', () => {
  const delays = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => endRecheckDelay(n, 2_000));
  assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 2_000, 2_000]);
  assert.ok(END_RECHECK_MS.reduce((a, b) => a + b, 0) < 1_000);
  assert.equal(endRecheckDelay(3, 15), 15, 'never longer than the poll interval');
});

const t0 = Date.UTC(2026, 11, 1, 10, 42, 7);
const lossCases: { name: string; lastAnswer: number | null; since: number; lostAt: number; requeueAt: number }[] = [
  {
    name: 'answered during the attempt',
    lastAnswer: t0 + 5_000,
    since: t0,
    lostAt: t0 + 5_000,
    requeueAt: t0 + 65_000,
  },
  { name: 'never answered in this run', lastAnswer: null, since: t0, lostAt: t0, requeueAt: t0 + 60_000 },
  {
    name: 'last answered before a restart: full grace from the recovery',
    lastAnswer: t0 - 600_000,
    since: t0,
    lostAt: t0 - 600_000,
    requeueAt: t0 + 60_000,
  },
];
for (const c of lossCases) {
  test(`lost contact: ${c.name}`, () => {
    assert.deepEqual(contactLoss(c.lastAnswer, c.since, 60_000), { lostAt: c.lostAt, requeueAt: c.requeueAt });
  });
}

test('while silent the attempt asks at its poll interval but never past its requeue time', () => {
  assert.equal(nextAskAfterSilence(t0, t0 + 60_000, 2_000), 2_000);
  assert.equal(nextAskAfterSilence(t0, t0 + 700, 2_000), 700);
  assert.equal(nextAskAfterSilence(t0, t0 - 5, 2_000), 0);
});

test('every failed request counts against contact except our own abort and an unusable answer (the server answered)', () => {
  const kinds: [ComfyFailure, boolean][] = [
    [{ kind: 'refused' }, true],
    [{ kind: 'reset' }, true],
    [{ kind: 'timeout', afterMs: 1500 }, true],
    [{ kind: 'network', code: 'EHOSTUNREACH', message: 'x' }, true],
    [{ kind: 'http', status: 500, body: null, bodyText: '' }, true],
    [{ kind: 'malformed', detail: 'x' }, false],
    [{ kind: 'aborted' }, false],
  ];
  for (const [f, silent] of kinds) assert.equal(isSilence(f), silent, f.kind);
});

test('the words for lost contact count from its last answer and down to the requeue', () => {
  const c = { instanceName: 'gpu-03', lostAt: t0, requeueAt: t0 + 60_000 };
  assert.equal(
    lostContactWords(c, t0 + 12_000),
    'lost contact with gpu-03 12 s ago; requeued in 48 s unless it answers',
  );
  assert.equal(lostContactWords(c, t0 + 61_000), 'lost contact with gpu-03 61 s ago; being requeued');
});

test("a failed ask gives the attempt up at the mark's requeue time (or a grace time of failed asks), as lost — or as what a malformed answer said", () => {
  const t0 = 1_000_000;
  const silent = { kind: 'refused' } as const;
  const base = { route: 'GET /queue', failingSince: t0, graceMs: 60_000, pollMs: 2_000, listeningSince: 0 };
  assert.deepEqual(
    afterFailedAsk({ ...base, failure: silent, loss: { lostAt: t0 - 5_000, requeueAt: t0 + 55_000 }, now: t0 }),
    { askInMs: 2_000 },
  );
  assert.deepEqual(
    afterFailedAsk({
      ...base,
      failure: silent,
      loss: { lostAt: t0 - 5_000, requeueAt: t0 + 55_000 },
      now: t0 + 54_500,
    }),
    { askInMs: 500 },
    'the last ask lands on the requeue time',
  );
  assert.deepEqual(
    afterFailedAsk({
      ...base,
      failure: silent,
      loss: { lostAt: t0 - 5_000, requeueAt: t0 + 55_000 },
      now: t0 + 55_000,
    }),
    { giveUp: { kind: 'lost', seconds: 60 } },
  );
  // No mark (probes keep clearing it): a grace time of failed asks from the first.
  assert.deepEqual(afterFailedAsk({ ...base, failure: silent, loss: null, now: t0 + 59_999 }), { askInMs: 1 });
  assert.deepEqual(afterFailedAsk({ ...base, failure: silent, loss: null, now: t0 + 60_000 }), {
    giveUp: { kind: 'lost', seconds: 60 },
  });
  const malformed = { kind: 'malformed', detail: 'not JSON' } as unknown as Parameters<
    typeof afterFailedAsk
  >[0]['failure'];
  assert.deepEqual(afterFailedAsk({ ...base, failure: malformed, loss: null, now: t0 + 60_000 }), {
    giveUp: { kind: 'transport', route: 'GET /queue', failure: malformed },
  });
});

test('asks that failed while the engine itself was stalled do not count: a grace time of failed asks runs from its return', () => {
  const t0 = 1_000_000;
  const silent = { kind: 'refused' } as const;
  // Failing since t0, the engine frozen until t0 + 50 s: not given up at t0 + 60 s, but a grace after its return.
  const base = { route: 'GET /queue', failingSince: t0, graceMs: 60_000, pollMs: 2_000, listeningSince: t0 + 50_000 };
  assert.deepEqual(afterFailedAsk({ ...base, failure: silent, loss: null, now: t0 + 60_000 }), { askInMs: 2_000 });
  assert.deepEqual(afterFailedAsk({ ...base, failure: silent, loss: null, now: t0 + 110_000 }), {
    giveUp: { kind: 'lost', seconds: 110 },
  });
});
