/** The store's SQLite parameters (`?`, `@name`) become PostgreSQL's `$n`, leaving literals, quoted names, comments and casts alone. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindValues, translate } from '../../electron/engine/store/postgres/placeholders.js';

test('positional ? become $1..$n in order', () => {
  const t = translate('SELECT * FROM jobs WHERE id = ? AND state IN (?, ?)');
  assert.equal(t.text, 'SELECT * FROM jobs WHERE id = $1 AND state IN ($2, $3)');
  assert.deepEqual(bindValues(t, ['j1', 'queued', 'held'], ''), ['j1', 'queued', 'held']);
  assert.deepEqual(
    bindValues(t, [['j1', 'queued', 'held']], ''),
    ['j1', 'queued', 'held'],
    'one array, as better-sqlite3 takes it',
  );
});

test('named @x, :x and $x share one $n per name, bound from one object in that order', () => {
  const t = translate(
    'UPDATE jobs SET state = @to, updated_at = :at WHERE id = $id AND state = @from AND @to <> @from',
  );
  assert.equal(t.text, 'UPDATE jobs SET state = $1, updated_at = $2 WHERE id = $3 AND state = $4 AND $1 <> $4');
  assert.deepEqual(bindValues(t, [{ from: 'queued', to: 'running', at: 5, id: 'j1', extra: 1 }], ''), [
    'running',
    5,
    'j1',
    'queued',
  ]);
});

test('literals, quoted names, comments and :: casts are not parameters', () => {
  const sql = `SELECT 'it''s ? @me' AS "odd ?name", n::text -- why? @x\nFROM t /* ? :y */ WHERE a = ?`;
  const t = translate(sql);
  assert.equal(t.text, `SELECT 'it''s ? @me' AS "odd ?name", n::text -- why? @x\nFROM t /* ? :y */ WHERE a = $1`);
  assert.deepEqual(t.params, { kind: 'positional', count: 1 });
});

test('bigints go as their digits; a wrong count, a missing name or mixed styles is refused with the statement', () => {
  assert.deepEqual(bindValues(translate('SELECT ?'), [2n ** 60n], ''), ['1152921504606846976']);
  assert.throws(
    () => bindValues(translate('SELECT ?, ?'), [1], 'SELECT ?, ?'),
    /takes 2 parameters but got 1: SELECT \?, \?/,
  );
  assert.throws(
    () => bindValues(translate('SELECT @a, @b'), [{ a: 1 }], 'SELECT @a, @b'),
    /Missing named parameter @b/,
  );
  assert.throws(() => bindValues(translate('SELECT 1'), [1], 'SELECT 1'), /takes no parameters/);
  assert.throws(() => translate('SELECT ?, @a'), /mixes \? and named parameters/);
});

test("LIKE becomes ILIKE (SQLite's LIKE ignores ASCII case), only as the keyword and outside literals", () => {
  assert.equal(
    translate("SELECT id FROM jobs WHERE shot LIKE @q ESCAPE '\\' AND likes NOT LIKE 'LIKE %' AND unlike = @u").text,
    "SELECT id FROM jobs WHERE shot ILIKE $1 ESCAPE '\\' AND likes NOT ILIKE 'LIKE %' AND unlike = $2",
  );
});

test('a parameter object with nothing to bind is taken, as better-sqlite3 takes it (a filter with no condition)', () => {
  assert.deepEqual(bindValues(translate('SELECT COUNT(*) AS n FROM assets'), [{}], ''), []);
  assert.throws(() => bindValues(translate('SELECT COUNT(*) AS n FROM assets'), ['x'], ''), /takes no parameters/);
});
