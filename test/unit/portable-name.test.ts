import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NAME_CHARS, portableNameProblem } from '../../shared/portable-name.js';
import { parameterValue, parseSeed, parseTake } from '../../electron/engine/intake/cell-values.js';

test('the portable-name rule takes tracker codes and refuses what a folder cannot be on some system', () => {
  for (const ok of [
    'sh010',
    'sq010_sh0020',
    'Moonfall',
    'ep101',
    'épisode-1',
    '森の家',
    'a.b',
    'con-fig',
    'COMET',
    'LPT',
    'x'.repeat(MAX_NAME_CHARS),
  ]) {
    assert.equal(portableNameProblem(ok, 'shot'), null, ok);
  }
  const bad: [string, RegExp][] = [
    ['', /must not be empty/],
    ['.', /is not a name/],
    ['..', /is not a name/],
    ['x'.repeat(MAX_NAME_CHARS + 1), /is 81 characters long; at most 80/],
    ['森'.repeat(60), /is 180 bytes in UTF-8; at most 160/],
    ['CON', /reserved device name on Windows/],
    ['prn', /reserved/],
    ['Aux.png', /reserved/],
    ['nul .txt', /reserved/],
    ['COM1', /reserved/],
    ['lpt9', /reserved/],
    ['COM¹', /reserved/],
    ['sh010.', /ends with a dot/],
    ['sh010 ', /ends with a space/],
    [' sh010', /starts or ends with a space/],
    ['sh:010', /contains ":"/],
    ['a/b', /contains "\/"/],
    ['a\\b', /contains "\\"/],
    ['what?', /contains "\?"/],
    ['a*b', /contains "\*"/],
    ['a|b', /contains "\|"/],
    ['"q"', /contains """/],
    ['<x>', /contains "</],
    ['tab\there', /control character U\+0009/],
    ['nul\u0000', /control character U\+0000/],
    ['c1\u0085', /U\+0085/],
    ['del\u007f', /U\+007F/],
    ['sh010\u202egnp.exe', /U\+202E/],
    ['iso\u2066late', /U\+2066/],
    ['zero\u200bwidth', /U\+200B/],
    ['bom\ufeff', /U\+FEFF/],
    ['half\ud800', /broken character/],
  ];
  for (const [name, words] of bad)
    assert.match(portableNameProblem(name, 'shot') ?? '(accepted)', words, JSON.stringify(name));
});

test('takes and seeds in CSV cells are digits, nothing Number() would also read', () => {
  for (const [cell, value] of [
    ['1', 1],
    ['12', 12],
    ['007', 7],
    ['1000000', 1_000_000],
  ] as const)
    assert.deepEqual(parseTake(cell), { ok: true, value });
  for (const cell of [
    '0',
    '-1',
    '1.5',
    '1e308',
    '1e3',
    '0x10',
    '0b1',
    '+3',
    ' 2',
    'Infinity',
    'NaN',
    '',
    '1000001',
    '9'.repeat(400),
  ]) {
    const r = parseTake(cell);
    assert.equal(r.ok, false, cell);
    assert.match(r.ok ? '' : r.message, /must be a whole number from 1 to 1000000, written in digits/);
  }
  assert.deepEqual(parseSeed('0'), { ok: true, value: 0 });
  assert.deepEqual(parseSeed('9007199254740991'), { ok: true, value: 9007199254740991 });
  for (const cell of ['9007199254740992', '-5', '0x10', '1e5', '3.0']) assert.equal(parseSeed(cell).ok, false, cell);
  assert.equal(parameterValue('7'), 7);
  assert.equal(parameterValue('-2.5'), -2.5);
  for (const cell of ['0x10', '1e308', '12345678901234567890', 'euler']) assert.equal(parameterValue(cell), cell);
});
