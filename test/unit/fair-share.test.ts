import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fairOrder, overShare, shareNote, weightOf } from '../../electron/engine/scheduler/fair-share.js';
import { GpuTime } from '../../electron/engine/scheduler/gpu-time.js';
import { parseProjectWeights, parseSettingValue } from '../../shared/farm-settings.js';

const q = (project: string, n: number) => ({ project, jobs: Array.from({ length: n }, (_, i) => `${project}${i}`) });

test('fair order: the project furthest below its share of GPU time goes next, each pick charged its cost', () => {
  const cases: { name: string; used: Record<string, number>; weights: Record<string, number>; want: string[] }[] = [
    {
      name: 'equal use, equal weights: alternate, the first-listed first',
      used: {},
      weights: {},
      want: ['A0', 'B0', 'A1', 'B1', 'A2', 'B2'],
    },
    {
      name: 'A has used more: B catches up first',
      used: { A: 2000 },
      weights: {},
      want: ['B0', 'B1', 'A0', 'B2', 'A1', 'A2'],
    },
    {
      name: 'weights 3:1: three of A for one of B',
      used: {},
      weights: { A: 3 },
      want: ['A0', 'B0', 'A1', 'A2', 'A3', 'B1'],
    },
    { name: 'an unnamed project weighs 1', used: {}, weights: { B: 1 }, want: ['A0', 'B0', 'A1', 'B1', 'A2', 'B2'] },
  ];
  for (const c of cases) {
    const got = fairOrder([q('A', 4), q('B', 3)], new Map(Object.entries(c.used)), c.weights, 1000).slice(0, 6);
    assert.deepEqual(got, c.want, c.name);
  }
});

test('fair order: a project whose queue runs out leaves the rest in order', () => {
  assert.deepEqual(fairOrder([q('A', 1), q('B', 3)], new Map(), {}, 1000), ['A0', 'B0', 'B1', 'B2']);
  assert.deepEqual(fairOrder([], new Map(), {}, 1000), []);
});

test('over its share: named only beyond its weight share (5 % margin), never alone', () => {
  const cases: { used: Record<string, number>; weights: Record<string, number>; want: string[] }[] = [
    { used: { A: 600, B: 400 }, weights: {}, want: ['A'] },
    { used: { A: 510, B: 490 }, weights: {}, want: [] },
    { used: { A: 750, B: 250 }, weights: { A: 3 }, want: [] },
    { used: { A: 500, B: 500 }, weights: { A: 3 }, want: ['B'] },
    { used: { A: 1000 }, weights: {}, want: [] },
    { used: {}, weights: {}, want: [] },
  ];
  for (const c of cases)
    assert.deepEqual(
      overShare(
        Object.keys(c.used).length ? Object.keys(c.used) : ['A', 'B'],
        new Map(Object.entries(c.used)),
        c.weights,
      ),
      c.want,
      JSON.stringify(c),
    );
  assert.equal(shareNote('Moonfall', ['Moonfall']), 'project Moonfall is over its share of GPU time');
  assert.equal(shareNote('Ashen', ['Moonfall']), null);
  assert.equal(weightOf({ A: 0 }, 'A'), 1);
});

test('project_weights: "name=weight" lists and JSON objects; bad ones refused with what to fix', () => {
  assert.deepEqual(parseProjectWeights('Moonfall=3, Ashen=1'), { ok: true, weights: { Moonfall: 3, Ashen: 1 } });
  assert.deepEqual(parseProjectWeights('Big Show = 2\nSmall=0.5'), {
    ok: true,
    weights: { 'Big Show': 2, Small: 0.5 },
  });
  assert.deepEqual(parseProjectWeights('{"Moonfall": 3}'), { ok: true, weights: { Moonfall: 3 } });
  const bad: [string, RegExp][] = [
    ['Moonfall', /"Moonfall" is not project=weight/],
    ['Moonfall=0', /weight of Moonfall must be a positive number/],
    ['Moonfall=x', /weight of Moonfall must be a positive number/],
    ['=3', /not project=weight/],
    ['{"a": 1', /not valid JSON/],
    ['{"a": "1"}', /weight of a must be a positive number/],
  ];
  for (const [text, message] of bad) {
    const r = parseSettingValue('project_weights', text);
    assert.equal(r.ok, false, text);
    if (!r.ok) assert.match(r.message, message);
  }
  assert.deepEqual(parseSettingValue('project_weights', ''), { ok: true, value: '' });
  assert.equal(parseSettingValue('fair_share', 2).ok, false);
});

test('GPU time: ended runs count until they leave the window, open ones what they ran so far', () => {
  let windowMs = 10_000;
  const g = new GpuTime(() => windowMs);
  g.seed([
    { project: 'A', at: 5_000, ms: 3_000 },
    { project: 'B', at: 1_000, ms: 1_000 },
  ]);
  assert.deepEqual([...g.usage(6_000)].sort(), [
    ['A', 3_000],
    ['B', 1_000],
  ]);
  g.started('x', 'B', 6_000);
  assert.equal(g.usage(8_000).get('B'), 3_000);
  g.ended('x', 9_000);
  assert.equal(g.usage(9_000).get('B'), 4_000);
  assert.equal(g.usage(12_000).get('B'), 3_000, 'the seeded B run left the window');
  assert.equal(g.typicalMs(12_000), 3_000);
  windowMs = 1_000;
  assert.equal(g.usage(12_000).size, 0);
  assert.equal(g.typicalMs(12_000), 1_000, 'no run in the window: one second');
});
