/**
 * The take's folder before outputs arrive (pools/comfy-lan/collect.ts prepareTakeDir), on a real disk:
 * made with every missing parent; an existing one is cleared of temp files another process left
 * (an engine killed mid-download), while this process's own — a download still running — stay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { TEMP_PREFIX } from '../../electron/engine/files/atomic-write.js';
import { takeDir } from '../../electron/engine/files/output-paths.js';
import { newFolders, prepareTakeDir } from '../../electron/engine/pools/attempt/take-files.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const TAKE = { project: 'Moonfall', episode: 'ep101', shot: 'sh010', stage: 'keyframe', take: 1 };

test('a take folder is made with every missing parent', async (t) => {
  const root = tempDirFor(t);
  const dir = await prepareTakeDir(root, TAKE);
  assert.equal(dir, takeDir(root, TAKE));
  assert.ok(existsSync(dir));
  assert.deepEqual(readdirSync(dir), []);
  // Its sibling take shares the parents that now exist.
  const next = await prepareTakeDir(root, { ...TAKE, take: 2 });
  assert.deepEqual(readdirSync(join(next, '..')).sort(), ['take-1', 'take-2']);
});

test("an existing take folder loses another process's temp files and keeps its own and the outputs", async (t) => {
  const root = tempDirFor(t);
  const dir = takeDir(root, TAKE);
  mkdirSync(dir, { recursive: true });
  const theirs = `${TEMP_PREFIX}999999-abcdef0123.tmp`;
  const mine = `${TEMP_PREFIX}${process.pid}-0123456789.tmp`;
  for (const name of [theirs, mine, 'kf_00001_.png']) writeFileSync(join(dir, name), 'x');
  await prepareTakeDir(root, TAKE);
  assert.deepEqual(readdirSync(dir).sort(), [mine, 'kf_00001_.png'].sort());
});

test("the folders mkdir made, from the topmost down to the take: each one's parent is the folder synced", () => {
  const root = join(sep, 'r');
  const take = join(root, 'P', 'E', 'sh010', 'keyframe', 'take-1');
  assert.deepEqual(newFolders(join(root, 'P', 'E', 'sh010'), take), [
    take,
    join(root, 'P', 'E', 'sh010', 'keyframe'),
    join(root, 'P', 'E', 'sh010'),
  ]);
  assert.deepEqual(newFolders(take, take), [take], 'only the take folder was new');
  assert.deepEqual(
    newFolders(join(root, 'P', 'E', 'sh010', 'keyframe', 'take-1'), take).map((f) => dirname(f)),
    [join(root, 'P', 'E', 'sh010', 'keyframe')],
  );
});
