import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDecimal, parseDecimal } from '../../shared/decimal-text.js';
import { parseSettingValue } from '../../shared/farm-settings.js';
import { printable, terminalJson, terminalText } from '../../electron/cli/terminal-text.js';

test('numbers are read in plain decimal only: hex, binary, exponents, blanks and words are refused', () => {
  for (const [text, n] of [
    ['16', 16],
    [' 16 ', 16],
    ['0.69', 0.69],
    ['-2', -2],
    ['.5', 0.5],
    ['3.', 3],
    ['007', 7],
  ] as const) {
    assert.equal(parseDecimal(text), n, text);
  }
  for (const text of [
    '0x10',
    '0X10',
    '0b1',
    '0o7',
    '1e3',
    '1E3',
    '',
    ' ',
    'abc',
    '+1',
    '1_000',
    '1,5',
    'Infinity',
    'NaN',
    '--1',
    '1.2.3',
    '１６',
  ]) {
    assert.equal(parseDecimal(text), null, JSON.stringify(text));
  }
});

test('a decimal rule bounds the number and says what it takes', () => {
  assert.equal(parseDecimal('2.5', { integer: true }), null);
  assert.equal(parseDecimal('0', { positive: true }), null);
  assert.equal(parseDecimal('0.01', { positive: true }), 0.01);
  assert.equal(parseDecimal('17', { integer: true, min: 1, max: 16 }), null);
  assert.equal(parseDecimal('16', { integer: true, min: 1, max: 16 }), 16);
  assert.equal(describeDecimal({ integer: true, min: 1, max: 16 }), 'a whole number from 1 to 16');
  assert.equal(describeDecimal({ positive: true }), 'a number above 0');
});

test('a farm setting typed as 0x10 or 1e3 is refused rather than read as 16 or 1000', () => {
  assert.deepEqual(parseSettingValue('retry_attempts', '3'), { ok: true, value: 3 });
  for (const typed of ['0x3', '3e0', '']) assert.equal(parseSettingValue('retry_attempts', typed).ok, false, typed);
});

test('control and bidi characters from a server are written out, never printed raw', () => {
  const hostile = 'RTX \u202E0904 \u001b[31mred\u001b[0m\r\u0085\u2066x\u2069';
  const shown = printable(hostile);
  assert.equal(shown, 'RTX <U+202E>0904 <U+001B>[31mred<U+001B>[0m<U+000D><U+0085><U+2066>x<U+2069>');
  assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  // A whole block keeps its lines and tabs; a single value does not.
  assert.equal(terminalText('a\tb\nc\u202Ed'), 'a\tb\nc<U+202E>d');
  assert.equal(printable('a\tb\nc'), 'a<U+0009>b<U+000A>c');
  assert.equal(printable('épisode 森'), 'épisode 森');
});

test('JSON for the terminal escapes what JSON.stringify leaves raw, and parses back to the same value', () => {
  const value = { gpu: 'RTX \u202E0904\u0085\u2028', esc: '\u001b[2J' };
  const text = terminalJson(value);
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u202a-\u202e\u2066-\u2069]/);
  assert.deepEqual(JSON.parse(text), value);
});
