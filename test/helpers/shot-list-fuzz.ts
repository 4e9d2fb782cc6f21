/**
 * Shot lists made up from a seeded random source, for the intake fuzz test: JSON and CSV, valid
 * and malformed, with hostile names, huge and wrongly typed values, deep nesting, BOMs and mixed
 * delimiters. The same seed gives the same lists, so a failing case can be replayed by its number.
 */
import type { RandomSource } from '../../electron/engine/clock.js';

export interface FuzzCase {
  n: number;
  kind: string;
  fileName: string;
  content: string;
  mapping?: { project?: string; episode?: string; stage?: string; template?: string };
}

type Pick = <T>(xs: readonly T[]) => T;

const NAMES = [
  'sh010',
  'sh020',
  'sq01_sh030',
  'Moonfall',
  'ep101',
  'keyframe',
  'motion',
  'épisode',
  '森',
  'x'.repeat(80),
  '.',
  '..',
  '...',
  'CON',
  'nul',
  'com1.png',
  'LPT9',
  'sh010.',
  'sh010 ',
  ' sh',
  'a:b',
  'a/b',
  'a\\b',
  '../../etc',
  'sh\u0000',
  'sh\u0007',
  'sh\u0085',
  'sh\u202egnp.exe',
  'sh\u2066x',
  'zw\u200b',
  '\ufeffbom',
  'half\ud800',
  'x'.repeat(300),
  '',
  '   ',
  'a"b',
  'q?',
  '*',
  '<>',
  '|',
  '=cmd|calc',
  '{"x":1}',
  'null',
  '0',
  '-1',
];
const TAKES: readonly unknown[] = [
  1,
  2,
  3,
  0,
  -1,
  1.5,
  1e308,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  '2',
  null,
  true,
  [],
  {},
  1_000_000,
  1_000_001,
];
const TAKE_CELLS = ['1', '2', '0', '-1', '1.5', '1e308', '0x10', '+3', ' 4', '9'.repeat(400), 'two', '', '007'];
const SEEDS: readonly unknown[] = [0, 42, -5, 1.5, 2 ** 60, '7', null];
const PRIORITIES: readonly unknown[] = ['rush', 'high', 'normal', 'low', 'urgent', 'RUSH', 3, null];
const TEMPLATES = ['keyframe-img2img', 'motion-i2v', 'ghost', '', 'keyframe-img2img/../x'];
const INPUTS = [
  'plates/sh010.png',
  'plates/missing.png',
  '/etc/passwd',
  '../shot_list.json',
  'C:\\x.png',
  'plates/../../README.md',
  '',
  'plates\u0000',
];

function deep(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

function jsonShot(pick: Pick, r: RandomSource, i: number): unknown {
  const shot: Record<string, unknown> = { id: r() < 0.7 ? `sh${String(i * 10).padStart(3, '0')}` : pick(NAMES) };
  if (r() < 0.3) {
    shot.stages = [
      { stage: 'keyframe', template: 'keyframe-img2img', ...(r() < 0.3 ? { depends_on: 'motion' } : {}) },
      {
        stage: r() < 0.8 ? 'motion' : pick(NAMES),
        template: 'motion-i2v',
        depends_on: r() < 0.8 ? 'keyframe' : pick(NAMES),
      },
    ];
  } else {
    shot.stage = r() < 0.8 ? 'keyframe' : pick(NAMES);
    shot.template = r() < 0.85 ? 'keyframe-img2img' : pick(TEMPLATES);
  }
  if (r() < 0.3) shot.take = pick(TAKES);
  if (r() < 0.2) shot.seed = pick(SEEDS);
  if (r() < 0.2) shot.priority = pick(PRIORITIES);
  if (r() < 0.3)
    shot.parameters =
      r() < 0.7
        ? { prompt: pick(NAMES), steps: pick([20, '20', 1e308, -1]) }
        : { prompt: deep(Math.floor(r() * 2000)) };
  if (r() < 0.2) shot.inputs = { image: pick(INPUTS) };
  if (r() < 0.05) shot.hooks = [{ command: '/bin/sh' }];
  return shot;
}

function jsonList(pick: Pick, r: RandomSource): string {
  const list: Record<string, unknown> = {
    project: r() < 0.85 ? 'Fuzz' : pick(NAMES),
    episode: r() < 0.85 ? `ep${Math.floor(r() * 5)}` : pick(NAMES),
    shots: Array.from({ length: 1 + Math.floor(r() * 12) }, (_, i) => jsonShot(pick, r, i)),
  };
  if (r() < 0.1) list.priority = pick(PRIORITIES);
  if (r() < 0.05) list.shots = pick(['x', 3, null, {}, [1, null, 'sh']]);
  if (r() < 0.05) delete list.project;
  return JSON.stringify(list, null, r() < 0.5 ? 2 : undefined);
}

function malformedJson(pick: Pick, r: RandomSource): string {
  const good = jsonList(pick, r);
  return pick([
    () => good.slice(0, Math.max(1, Math.floor(good.length * r()))),
    () => good.replace('}', '},'),
    () => `${good}garbage`,
    () => `[${good}]`,
    () => `{"project": "P", "episode": "E", "shots": [${'['.repeat(5000)}${']'.repeat(5000)}]}`,
    () => '',
    () => '\ufeff',
    () => 'null',
    () => '"just a string"',
    () => String.fromCharCode(...Array.from({ length: 200 }, () => Math.floor(r() * 256))),
  ])();
}

function csvList(pick: Pick, r: RandomSource): string {
  const delimiter = r() < 0.6 ? ',' : ';';
  // A NUL anywhere refuses the file as binary: only now and then, so most files reach the rows.
  const names = r() < 0.05 ? NAMES : NAMES.filter((x) => !x.includes('\u0000'));
  const namePick = (): string => pick(names);
  // Once in a while a file with a row in the other delimiter, or a cell too few: refused whole, with the line.
  const brokenRow = r() < 0.08 ? Math.floor(r() * 25) : -1;
  const otherDelimiterRow = r() < 0.08 ? Math.floor(r() * 25) : -1;
  const header = [
    pick(['Shot', 'Name', 'Shot Code', 'shot_name', 'Code']),
    'Sequence',
    'Take',
    'Seed',
    'Priority',
    'Depends On',
    'input:image',
    'param:steps',
    'Frames',
  ];
  const rows = [header.join(delimiter)];
  const count = 1 + Math.floor(r() * 25);
  for (let i = 0; i < count; i++) {
    const cells = [
      r() < 0.7 ? `sh${String(i * 10).padStart(3, '0')}` : namePick(),
      r() < 0.5 ? '' : r() < 0.8 ? 'sq01' : namePick(),
      r() < 0.6 ? '' : pick(TAKE_CELLS),
      r() < 0.8 ? '' : pick(['1', '-1', '0x10', '99999999999999999999']),
      r() < 0.7 ? '' : String(pick(PRIORITIES)),
      r() < 0.85 ? '' : pick(['keyframe', 'motion', ...names]),
      r() < 0.85 ? '' : pick(INPUTS),
      r() < 0.8 ? '' : pick(['20', '1e308', 'abc', '-3']),
      r() < 0.8 ? '' : pick(['48', '-1', 'many']),
    ].map((c) => (/[,;"\n]/.test(c) || r() < 0.1 ? `"${c.replace(/"/g, '""')}"` : c));
    const d = i === otherDelimiterRow ? (delimiter === ',' ? ';' : ',') : delimiter;
    rows.push((i === brokenRow ? cells.slice(1) : cells).join(d));
  }
  let text = rows.join(r() < 0.3 ? '\r\n' : '\n');
  if (r() < 0.3) text = `\ufeff${text}`;
  if (r() < 0.03) text += '\n"unclosed';
  return text;
}

export function fuzzCases(r: RandomSource, count: number): FuzzCase[] {
  const pick: Pick = (xs) => xs[Math.floor(r() * xs.length)] as never;
  return Array.from({ length: count }, (_, n): FuzzCase => {
    const roll = r();
    if (roll < 0.4) return { n, kind: 'json', fileName: `fuzz-${n}.json`, content: jsonList(pick, r) };
    if (roll < 0.55) return { n, kind: 'malformed json', fileName: `fuzz-${n}.json`, content: malformedJson(pick, r) };
    const mapping = {
      project: r() < 0.9 ? 'Fuzz' : pick(NAMES.filter((x) => x.length > 0)),
      episode: `ep${Math.floor(r() * 5)}`,
      stage: r() < 0.9 ? 'keyframe' : 'motion',
      template: r() < 0.9 ? 'keyframe-img2img' : pick(TEMPLATES.filter((x) => x.length > 0)),
    };
    return { n, kind: 'csv', fileName: `fuzz-${n}.csv`, content: csvList(pick, r), mapping };
  });
}
