/**
 * A Node client of the contract (the CLI reaching a running farm, the desktop reaching a studio
 * farm) takes an answer through one function: the result, or the engine's error whole — the
 * studio farm's client once dropped `retryable` and `details` on the way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultOfAnswer, ShotfarmError } from '../../shared/errors.js';

const unexpected = () => new ShotfarmError('unavailable', 'not a Shotfarm answer');

test('a result is given back; an error keeps its code, message, retryable and details; anything else is unexpected', () => {
  assert.deepEqual(resultOfAnswer({ ok: true, result: { n: 3 } }, unexpected), { n: 3 });
  try {
    resultOfAnswer(
      {
        ok: false,
        error: { code: 'storage', message: 'the disk is full', retryable: true, details: { file: '/d/x' } },
      },
      unexpected,
    );
    assert.fail('it threw');
  } catch (err) {
    assert.ok(err instanceof ShotfarmError);
    assert.deepEqual(
      [err.code, err.message, err.retryable, err.details],
      ['storage', 'the disk is full', true, { file: '/d/x' }],
    );
  }
  assert.throws(() => resultOfAnswer('<html>', unexpected), /not a Shotfarm answer/);
  assert.throws(() => resultOfAnswer(null, unexpected), /not a Shotfarm answer/);
});
