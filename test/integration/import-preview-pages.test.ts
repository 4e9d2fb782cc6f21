/**
 * A preview asked for with `firstRows` answers with its counts and that many rows, errors first;
 * import.previewRows gives the rest a page at a time in the same order, and every row exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShotfarmError } from '../../shared/errors.js';
import { engineFor } from '../helpers/engine.js';
import { twoStageList } from '../helpers/shot-lists.js';

test('a paged preview sends its counts and the first rows, errors first; previewRows pages through every row once', async (ctx) => {
  const t = await engineFor(ctx);
  // 3,000 shots of two stages, every 1,000th keyframe with an unknown template (its motion clip then
  // waits for a row with errors): 6,000 rows, 6 with errors, the last of them near the end of the file.
  const content = twoStageList(3_000, { badTemplateEvery: 1_000 });
  const whole = await t.engine.call('import.preview', { fileName: 'big.json', content });
  const paged = await t.engine.call('import.preview', { fileName: 'big.json', content, firstRows: 100 });
  assert.equal(whole.rows.length, 6_000, 'without firstRows every row comes back, in file order');
  assert.deepEqual(
    whole.rows.map((r) => r.row),
    whole.rows.map((_, i) => i + 1),
  );
  assert.equal(paged.totalRows, 6_000);
  assert.deepEqual(paged.counts, whole.counts);
  assert.equal(paged.counts.error, 6);
  assert.equal(paged.rows.length, 100);
  const expected = [
    ...whole.rows.filter((r) => r.status === 'error'),
    ...whole.rows.filter((r) => r.status !== 'error'),
  ];
  assert.deepEqual(
    paged.rows.map((r) => r.row),
    expected.slice(0, 100).map((r) => r.row),
    'errors first, then in file order',
  );
  assert.deepEqual(
    paged.rows.slice(0, 6).map((r) => r.status),
    Array(6).fill('error'),
  );

  const seen: number[] = [];
  for (let offset = 0; ; offset += 1_000) {
    const page = await t.engine.call('import.previewRows', { previewId: paged.previewId, offset, limit: 1_000 });
    assert.equal(page.total, 6_000);
    assert.equal(page.offset, offset);
    if (page.rows.length === 0) break;
    seen.push(...page.rows.map((r) => r.row));
  }
  assert.deepEqual(
    seen,
    expected.map((r) => r.row),
    'every row once, in the order of the first page',
  );
  // The pages were views of the kept preview: its commit stores what the whole preview said.
  const result = await t.engine.call('import.commit', { previewId: paged.previewId });
  assert.equal(result.imported, whole.counts.new);
});

test('previewRows refuses a preview that is gone and a page larger than 1,000 rows', async (ctx) => {
  const t = await engineFor(ctx);
  const p = await t.engine.call('import.preview', { fileName: 'a.json', content: twoStageList(3), firstRows: 2 });
  await assert.rejects(
    t.engine.call('import.previewRows', { previewId: p.previewId, offset: 0, limit: 1_001 }),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'bad_input',
  );
  await t.engine.call('import.commit', { previewId: p.previewId });
  await assert.rejects(
    t.engine.call('import.previewRows', { previewId: p.previewId, offset: 0, limit: 10 }),
    (err: unknown) =>
      err instanceof ShotfarmError && err.code === 'not_found' && /expired or was already imported/.test(err.message),
  );
});
