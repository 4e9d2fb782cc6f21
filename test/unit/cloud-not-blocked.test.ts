/**
 * A queued job that no LAN workstation could ever take, but a registered RunPod endpoint could (its
 * tags and VRAM fit), is not "blocked": it waits for the cloud burst and its reason says so. One
 * that no endpoint could take either (tags, VRAM, or the endpoint disabled) stays blocked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { burstWaitOf, type BurstJob } from '../../electron/engine/pools/runpod/burst-wait.js';
import type { FarmFacts } from '../../electron/engine/views/farm-facts.js';
import { isBlockedWait } from '../../electron/engine/views/wait-explainer.js';
import type { JobWait } from '../../electron/engine/views/wait-reasons.js';
import type { JobRow } from '../../electron/engine/store/job-rows.js';

const GB = 1024 ** 3;
const endpoint = (tags: string[], adminState = 'active', vramGb = 24) =>
  ({
    admin_state: adminState,
    health: 'idle',
    tags_json: JSON.stringify(tags),
    vram_json: JSON.stringify({ totalBytes: vramGb * GB }),
  }) as Parameters<typeof burstWaitOf>[0]['endpoints'][number];
const job = (tags: string[], vramGb = 8): BurstJob & JobRow =>
  ({ enqueued_at: 0, priority: 50, tags_json: JSON.stringify(tags), vram_gb: vramGb }) as BurstJob & JobRow;
const never = { dispatchable: false, lasting: 'never' } as JobWait;

function factsWith(endpoints: ReturnType<typeof endpoint>[]): FarmFacts {
  const burstWait = burstWaitOf({
    endpoints,
    burstAfterS: 600,
    budgetUsdPerDay: 5,
    spentTodayUsd: () => 0,
    now: 1_000,
    dispatchingSince: 0,
    jobSince: (j) => j.enqueued_at,
  });
  return { instances: [{}], burstWait } as unknown as FarmFacts;
}

test('a job only a cloud endpoint could take is not blocked; one no endpoint could take is', () => {
  const cases: [string, ReturnType<typeof endpoint>[], BurstJob & JobRow, boolean][] = [
    ['no endpoint at all', [], job(['cloud']), true],
    ['the endpoint offers the tag', [endpoint(['cloud'])], job(['cloud']), false],
    ['the endpoint lacks the tag', [endpoint([])], job(['cloud']), true],
    ['too much VRAM for the endpoint', [endpoint(['cloud'], 'active', 24)], job(['cloud'], 40), true],
    ['the endpoint is disabled', [endpoint(['cloud'], 'disabled')], job(['cloud']), true],
    ['the endpoint drains: it could take work again', [endpoint(['cloud'], 'draining')], job(['cloud']), false],
  ];
  for (const [what, endpoints, j, blocked] of cases)
    assert.equal(isBlockedWait(never, factsWith(endpoints), j), blocked, what);
});

test('a job the endpoint could take says why it waits for the burst', () => {
  const facts = factsWith([endpoint(['cloud'])]);
  assert.equal(facts.burstWait(job(['cloud'])), 'cloud burst waits until the job has waited 10 min');
});
