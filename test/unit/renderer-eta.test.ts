import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobProgress, JobView } from '../../shared/domain.js';
import { etaOf, workflowFraction } from '../../renderer/lib/eta.js';

const T0 = 1_000_000;
const running = (estimate: JobView['estimate'] = null) => ({ state: 'running' as const, startedAt: T0, estimate });
const p = (value: number, max: number, nodesDone?: number, nodesTotal?: number): JobProgress => ({
  node: '3',
  nodeType: 'KSampler',
  value,
  max,
  at: 0,
  nodesDone,
  nodesTotal,
});
const usual = {
  typicalMs: 60_000,
  p90Ms: 75_000,
  runs: 12,
  gpuName: 'RTX 4090',
  coldMs: null,
  coldRuns: 0,
  basis: 'exact' as const,
};

test('the ETA: the usual time left when there were earlier runs, else the sampler pace; never ~0 s while work remains', () => {
  const cases: [string, ReturnType<typeof running>, JobProgress | null, number, string][] = [
    ['usual run time minus what ran', running(usual), p(5, 20, 4, 7), T0 + 20_000, '~40s'],
    ['past the usual time: overdue, not ~0 s', running(usual), p(0, 0, 7, 7), T0 + 59_500, 'overdue'],
    ['well past it', running(usual), p(0, 0, 7, 7), T0 + 90_000, 'overdue'],
    [
      'no earlier run: the sampler pace, a lower bound with nodes after it',
      running(),
      p(10, 20, 4, 7),
      T0 + 10_000,
      '>10s',
    ],
    ['no earlier run, the last node: the pace', running(), p(10, 20, 7, 7), T0 + 10_000, '~10s'],
    ['a pace under a second still says a second', running(), p(199, 200, 4, 7), T0 + 10_000, '>1s'],
    [
      'the sampler done, decode ahead, no earlier run: no figure rather than ~0 s',
      running(),
      p(20, 20, 5, 7),
      T0 + 10_000,
      '—',
    ],
    ['between nodes, no earlier run', running(), p(0, 0, 6, 7), T0 + 10_000, '—'],
    ['not running', { state: 'queued' as never, startedAt: null as never, estimate: null }, null, T0, '—'],
  ];
  for (const [what, job, progress, now, text] of cases) assert.equal(etaOf(job, progress, now).text, text, what);
  assert.match(
    etaOf(running(usual), p(5, 20, 4, 7), T0 + 20_000).title,
    /usually 1m 00s on RTX 4090 \(median of 12 runs\)/,
  );
});

test('the bar covers the whole workflow: it never falls back at the nodes after the sampler', () => {
  assert.equal(workflowFraction(p(0, 0, 1, 8)), 0);
  assert.equal(workflowFraction(p(10, 20, 5, 8)), 4.5 / 8);
  const atSampler = workflowFraction(p(20, 20, 5, 8))!;
  const atDecode = workflowFraction(p(0, 0, 6, 8))!;
  const atSave = workflowFraction(p(0, 0, 7, 8))!;
  assert.ok(atSampler <= atDecode && atDecode <= atSave, `${atSampler} ≤ ${atDecode} ≤ ${atSave}`);
  assert.equal(workflowFraction(p(5, 10)), 0.5, 'without node counts: the steps');
  assert.equal(workflowFraction(p(0, 0)), null, 'nothing to go by: an indeterminate bar');
});
