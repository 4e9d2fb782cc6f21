/**
 * The farm host's absolute paths are withheld from remote answers (server-paths.ts): which text is a
 * path and which is not (URLs, the API's routes, relative inputs), as a table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, sep, win32 } from 'node:path';
import {
  remoteEnvelope,
  SERVER_PATH_WORDS as P,
  withoutServerPaths,
} from '../../electron/engine/hosting/server-paths.js';

// Paths as this machine makes them (the OS temp folder), and as a Windows farm host would.
const TMP = tmpdir();
const top = `${sep}${TMP.split(sep).filter(Boolean)[0] ?? 'tmp'}`; // one segment: not a place worth withholding
const drive = `C:${win32.sep}`;
const winOut = win32.join(drive, 'farm', 'out');
const winSpaced = win32.join(drive, 'my farm', 'out');
const unc = `${win32.sep}${win32.sep}${win32.join('nas', 'renders')}`;

test('absolute paths become words; URLs, routes, relative paths and single slashes stay', () => {
  const cases: [string, string][] = [
    [`Cannot open the database ${join(TMP, 'shotfarm', 'shotfarm.sqlite')}.`, `Cannot open the database ${P}.`],
    [
      `input file "a.png" does not exist (looked at ${join(TMP, 'in', 'plates', 'a.png')})`,
      `input file "a.png" does not exist (looked at ${P})`,
    ],
    [`The database "${join(TMP, 'x y', 'db')}" is locked`, `The database "${P}" is locked`],
    [`the folder '${winSpaced}' is gone`, `the folder '${P}' is gone`],
    [`output_root ${winOut} is full`, `output_root ${P} is full`],
    [`share ${unc} is gone`, `share ${P} is gone`],
    [`the folder ${top}: gone`, `the folder ${top}: gone`], // one segment: not a place on disk worth withholding (nor sure to be one)
    [
      'see https://api.runpod.ai/v2/health and http://gpu-01:8188/view',
      'see https://api.runpod.ai/v2/health and http://gpu-01:8188/view',
    ],
    ['Nothing at /api/nope/x.', 'Nothing at /api/nope/x.'],
    ['input file "plates/sh010.png" is missing', 'input file "plates/sh010.png" is missing'],
    ['1/2 done, and/or', '1/2 done, and/or'],
  ];
  for (const [text, shown] of cases) assert.equal(withoutServerPaths(text), shown, text);
});

test('an envelope keeps its code and retryable; details lose their paths too; an envelope without paths is passed as is', () => {
  const db = join(TMP, 'x', 'shotfarm.sqlite');
  const env = {
    code: 'storage' as const,
    message: `The database ${db} is empty`,
    retryable: false,
    details: { file: db, n: 3 },
  };
  assert.deepEqual(remoteEnvelope(env), {
    code: 'storage',
    message: `The database ${P} is empty`,
    retryable: false,
    details: { file: P, n: 3 },
  });
  const plain = { code: 'bad_input' as const, message: 'No.', retryable: false };
  assert.equal(remoteEnvelope(plain), plain);
});
