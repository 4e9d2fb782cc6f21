import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitName, MAX_NAME_BYTES } from '../../electron/engine/files/fit-name.js';
import { takeDir } from '../../electron/engine/files/output-paths.js';

test('a name that fits is kept as it is', () => {
  for (const n of ['sh010_00001_.png', 'Moonfall', 'ép101 — take', 'a.b.c.exr']) assert.equal(fitName(n), n);
});

test('a long name keeps its start and extension, gets a hash of the whole, and fits in MAX_NAME_BYTES', () => {
  const a = `${'x'.repeat(236)}_00001_.png`;
  const b = `${'x'.repeat(236)}_00002_.png`;
  const fa = fitName(a);
  assert.ok(Buffer.byteLength(fa) <= MAX_NAME_BYTES, `${Buffer.byteLength(fa)} bytes`);
  assert.match(fa, /^x+~[0-9a-f]{10}\.png$/);
  assert.notEqual(fa, fitName(b), 'two long names stay two files');
  assert.equal(fitName(a), fa, 'the same name gives the same file');
  const wide = fitName('é'.repeat(300));
  assert.ok(Buffer.byteLength(wide) <= MAX_NAME_BYTES);
  assert.ok(!wide.includes('\ufffd'), 'never splits a character');
});

test('Windows device names, trailing dots and spaces, separators and controls are made safe', () => {
  assert.equal(fitName('CON'), '_CON');
  assert.equal(fitName('nul.png'), '_nul.png');
  assert.equal(fitName('COM1.txt'), '_COM1.txt');
  assert.equal(fitName('console'), 'console');
  assert.equal(fitName('shot.'), 'shot_');
  assert.equal(fitName('shot. .'), 'shot___');
  assert.equal(fitName('..'), '__');
  assert.equal(fitName('a/b\\c:d\u0001e'), 'a_b_c_d_e');
});

test('every folder of a take is made to fit: a name cannot climb out of the output root', () => {
  const dir = takeDir('/srv/renders', { project: 'P', episode: '..', shot: 'a/../../b', stage: 'CON', take: 1 });
  assert.equal(dir, '/srv/renders/P/__/a_.._.._b/_CON/take-1');
});
