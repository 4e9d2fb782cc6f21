/**
 * `due` on every import path (issue 28): the JSON field (list, shot, stage), the CSV `Due` column,
 * the import's option; a bad value is refused with a message that says how to write it, and the
 * store is unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ShotfarmError } from '../../shared/errors.js';
import { engineFor, importText, RESOURCES, tableCounts } from '../helpers/engine.js';

const sample = JSON.parse(readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8')) as {
  shots: { id: string; due?: string; stages?: { stage: string; due?: string }[] }[];
  due?: string;
};
const kitsu = readFileSync(`${RESOURCES}samples/kitsu_shots.csv`, 'utf8');
const Z = (iso: string) => Date.parse(iso);

async function dueOf(engine: import('../../electron/engine/engine.js').Engine): Promise<Map<string, number | null>> {
  const rows = (await engine.call('jobs.list', { limit: 1000 })).rows;
  return new Map(rows.map((r) => [`${r.shot}/${r.stage}`, r.dueAt ?? null]));
}

test('a JSON shot list carries due on the list, a shot or a stage; the nearest one wins', async (ctx) => {
  const t = await engineFor(ctx);
  const list = structuredClone(sample);
  list.due = '2026-12-06T09:00Z';
  (list.shots[0] as (typeof list.shots)[number]).due = '2026-12-05T18:00Z';
  const stage = list.shots[0]?.stages?.[1];
  if (stage) stage.due = '2026-12-05T20:00Z';
  const { result } = await importText(t.engine, 'shot_list.json', JSON.stringify(list));
  assert.equal(result.imported, 4);
  const due = await dueOf(t.engine);
  assert.equal(due.get('sh010/keyframe'), Z('2026-12-05T18:00Z'), 'the shot’s own');
  assert.equal(due.get('sh010/motion'), Z('2026-12-05T20:00Z'), 'the stage’s own');
  assert.equal(due.get('sh020/keyframe'), Z('2026-12-06T09:00Z'), 'the list’s');
});

test('a CSV Due column sets each row’s due time; the import option fills the rows without one', async (ctx) => {
  const t = await engineFor(ctx);
  const lines = kitsu.trim().split('\n');
  const csv = [`${lines[0]};Due`, `${lines[1]};2026-12-05T09:00Z`, ...lines.slice(2).map((l) => `${l};`)].join('\n');
  const preview = await t.engine.call('import.preview', {
    fileName: 'kitsu.csv',
    content: csv,
    baseDir: `${RESOURCES}samples`,
    mapping: { project: 'Moonfall', stage: 'keyframe', template: 'keyframe-img2img' },
    due: '2026-12-07T12:00Z',
  });
  assert.equal(preview.counts.error, 0, JSON.stringify(preview.rows.map((r) => r.errors)));
  await t.engine.call('import.commit', { previewId: preview.previewId });
  const due = await dueOf(t.engine);
  assert.equal(due.get('sq01_sh040/keyframe'), Z('2026-12-05T09:00Z'), 'the column');
  assert.equal(due.get('sq01_sh050/keyframe'), Z('2026-12-07T12:00Z'), 'the option');
});

test('a bad due is refused with how to write it, and the store is unchanged (option, JSON list, JSON shot, CSV)', async (ctx) => {
  const t = await engineFor(ctx);
  const before = tableCounts(t.engine);
  await assert.rejects(
    t.engine.call('import.preview', { fileName: 'shot_list.json', content: JSON.stringify(sample), due: 'friday' }),
    (err: unknown) =>
      err instanceof ShotfarmError && err.code === 'bad_input' && /due "friday".*2026-12-05T09:00/.test(err.message),
  );
  await assert.rejects(
    t.engine.call('import.preview', {
      fileName: 'shot_list.json',
      content: JSON.stringify({ ...sample, due: '2026-02-30' }),
    }),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'bad_input' && /due "2026-02-30"/.test(err.message),
  );
  const oneBad = structuredClone(sample);
  (oneBad.shots[1] as (typeof oneBad.shots)[number]).due = '12/05/2026';
  const p = await t.engine.call('import.preview', {
    fileName: 'shot_list.json',
    content: JSON.stringify(oneBad),
    baseDir: `${RESOURCES}samples`,
  });
  const bad = p.rows.find((r) => r.shot === 'sh020');
  assert.equal(bad?.status, 'error');
  assert.match(bad?.errors.join(' ') ?? '', /shot_list\.json, row \d+.*due "12\/05\/2026" is not a date and time/);
  const lines = kitsu.trim().split('\n');
  const csv = [`${lines[0]};Due`, ...lines.slice(1).map((l) => `${l};tomorrow`)].join('\n');
  const c = await t.engine.call('import.preview', {
    fileName: 'kitsu.csv',
    content: csv,
    baseDir: `${RESOURCES}samples`,
    mapping: { project: 'Moonfall', stage: 'keyframe', template: 'keyframe-img2img' },
  });
  assert.equal(c.counts.error, c.rows.length, 'every row with a bad Due is an error');
  const r = await t.engine.call('import.commit', { previewId: c.previewId });
  assert.equal(r.imported, 0);
  assert.deepEqual(tableCounts(t.engine), before, 'nothing stored');
});
