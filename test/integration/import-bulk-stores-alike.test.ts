/**
 * The import's bulk writes are two code paths: SQLite takes rows as VALUES lists, PostgreSQL as one
 * array per column (store/bulk.ts unnestRows). The same shot list imported into each store, by
 * engines with the same clock and seed, must leave the same jobs, creation events and shots, value
 * for value — awkward text included (what an array literal must quote: NULL as a word, quotes,
 * backslashes, braces, commas, empty strings, non-ASCII), in more rows than one array statement
 * holds, and a second import that overlaps the first (its stored rows counted as duplicates).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor, type TestEngine } from '../helpers/engine.js';
import { closeTestPostgres } from '../helpers/test-store.js';

/** More jobs than one PostgreSQL array statement takes (5,000), so the arrays go in chunks. */
const SHOTS = 2_600;
const AWKWARD = ['NULL', 'null', '', 'a "quoted" word', 'back\\slash', '{brace}', 'a, b', 'Épisode 镜头 😀', "it's"];

function shotList(from: number, to: number): string {
  const shots = [];
  for (let i = from; i < to; i++) {
    const text = AWKWARD[i % AWKWARD.length] as string;
    shots.push({
      id: `sh${String(i).padStart(5, '0')}`,
      description: i % 7 === 0 ? undefined : `${text} ${i}`,
      ...(i % 5 === 0 ? { priority: 'high' } : {}),
      ...(i % 11 === 0 ? { due: '2026-12-20T18:00:00Z' } : {}),
      stages: [
        {
          stage: 'keyframe',
          template: 'keyframe-img2img',
          // A pinned seed on some rows, a drawn one on the others.
          ...(i % 3 === 0 ? { seed: 1000 + i } : {}),
          parameters: { prompt: `${text} {"x": [1, "2"]} \\n ${i}`, denoise: 0.25 + (i % 4) / 10 },
        },
        { stage: 'motion', template: 'motion-i2v', depends_on: 'keyframe', parameters: { frames: 25 } },
      ],
    });
  }
  return JSON.stringify({ project: 'Alike', episode: 'ep1', shots });
}

/**
 * Every row of a table in id order, keys sorted, PostgreSQL's own row-number column left out. A
 * shot's id is left out, and a job's shot given by its code: PostgreSQL's identity spends a number
 * on each row an ON CONFLICT skipped (the overlapping shots), SQLite's rowid does not — a
 * difference of the stores whichever way the rows are sent.
 */
function rows(t: TestEngine, table: string): Record<string, unknown>[] {
  const codes = new Map(
    (t.engine.db.all('SELECT id, code FROM shots') as { id: number; code: string }[]).map((r) => [r.id, r.code]),
  );
  return (t.engine.db.all(`SELECT * FROM ${table} ORDER BY id`) as Record<string, unknown>[]).map((r) =>
    Object.fromEntries(
      Object.keys(r)
        .filter((k) => k !== 'rowid' && !(table === 'shots' && k === 'id'))
        .sort()
        .map((k) => [k, k === 'shot_id' ? codes.get(r[k] as number) : r[k]]),
    ),
  );
}

async function importList(t: TestEngine, content: string) {
  const preview = await t.engine.call('import.preview', { fileName: 'alike.json', content });
  assert.equal(preview.counts.error, 0, JSON.stringify(preview.rows.find((r) => r.status === 'error')));
  return { counts: preview.counts, ...(await t.engine.call('import.commit', { previewId: preview.previewId })) };
}

after(closeTestPostgres);

test('an import writes the same jobs, creation events and shots on PostgreSQL (arrays) as on SQLite (VALUES lists)', {
  timeout: 240_000,
}, async (ctx) => {
  const sqlite = await engineFor(ctx, { store: 'sqlite' });
  const postgres = await engineFor(ctx, { store: 'postgres' });
  for (const t of [sqlite, postgres]) {
    const first = await importList(t, shotList(0, SHOTS));
    assert.deepEqual([first.imported, first.duplicates], [2 * SHOTS, 0]);
    // The second list overlaps the first's last 100 shots: those rows are duplicates, written nowhere.
    t.clock.advance(60_000);
    const second = await importList(t, shotList(SHOTS - 100, SHOTS + 50));
    assert.deepEqual(
      second.counts,
      { new: 100, duplicate: 200, error: 0 },
      `${t.store.kind}: the preview finds the stored rows`,
    );
    assert.deepEqual([second.imported, second.duplicates], [100, 200]);
  }
  for (const table of ['jobs', 'job_events', 'shots']) {
    const a = rows(sqlite, table);
    const b = rows(postgres, table);
    assert.equal(b.length, a.length, `${table}: as many rows`);
    for (let i = 0; i < a.length; i++) assert.deepEqual(b[i], a[i], `${table}: row ${i + 1}`);
  }
  // The awkward text arrived as written, not as SQL NULL or with its quotes changed.
  const shot = (t: TestEngine, code: string) =>
    t.engine.db.one('SELECT description FROM shots WHERE code = ?', code) as { description: string | null };
  assert.deepEqual(shot(postgres, 'sh00001'), { description: 'null 1' });
  assert.deepEqual(shot(postgres, 'sh00009'), { description: 'NULL 9' });
  assert.deepEqual(shot(postgres, 'sh00007'), { description: null });
});
