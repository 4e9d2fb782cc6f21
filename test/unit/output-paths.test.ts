import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve, sep } from 'node:path';
import { mediaTypeOf, outputPath, safeFileName, takeDir } from '../../electron/engine/files/output-paths.js';

const dir = takeDir('/srv/renders', {
  project: 'Moonfall',
  episode: 'ep101',
  shot: 'sh010',
  stage: 'keyframe',
  take: 2,
});

test('outputs go to <root>/<project>/<episode>/<shot>/<stage>/take-<n>/', () => {
  assert.equal(dir, join(resolve('/srv/renders'), 'Moonfall', 'ep101', 'sh010', 'keyframe', 'take-2'));
  assert.equal(outputPath(dir, 'kf_00001_.png'), join(dir, 'kf_00001_.png'));
});

test('a server-given name with ../ or an absolute path never leaves the take folder', () => {
  for (const evil of [
    '../../../../etc/passwd', // hostile-path
    '/etc/passwd',
    '..\\..\\win.ini',
    'a/../../b.png',
    './.hidden',
    'C:\\temp\\x.png',
  ]) {
    const p = outputPath(dir, evil, '');
    assert.ok(p.startsWith(dir + sep), `${evil} → ${p}`);
    assert.ok(!p.slice(dir.length + 1).includes(sep), `${evil} stays a plain file name`);
  }
  const sub = outputPath(dir, 'x.png', '../../../tmp'); // hostile-path
  assert.ok(sub.startsWith(dir + sep), sub);
});

test('a subfolder is kept as a file-name prefix; unusable names are refused', () => {
  assert.equal(safeFileName('x.png', 'shots/sh010'), 'shots_sh010_x.png');
  assert.throws(() => safeFileName('', ''), /not a usable file name/);
  assert.throws(() => safeFileName('..', ''), /not a usable file name/);
});

test('media types come from the extension', () => {
  assert.equal(mediaTypeOf('a.PNG'), 'image/png');
  assert.equal(mediaTypeOf('clip.webp'), 'image/webp');
  assert.equal(mediaTypeOf('clip.mp4'), 'video/mp4');
  assert.equal(mediaTypeOf('noext'), 'application/octet-stream');
});
