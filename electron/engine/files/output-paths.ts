/**
 * Where outputs go (SPEC §8): `<root>/<project>/<episode>/<shot>/<stage>/take-<n>/<file>`.
 * File names come from a ComfyUI server and are untrusted: only a plain base name survives, and
 * the final path is checked to stay inside the take's folder, so `../` or an absolute name can
 * never write outside the output root. Every folder and file name is made to fit the file system
 * (fit-name.ts): a 236-character prefix ComfyUI happily saves under still makes a file here.
 */
import { basename, join, resolve, sep } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';
import type { TakeKey } from '../../../shared/take-key.js';
import { fitName } from './fit-name.js';

export function takeDir(root: string, k: TakeKey): string {
  return join(resolve(root), ...[k.project, k.episode, k.shot, k.stage].map(fitName), `take-${k.take}`);
}

/** A safe local name for a server-given file name (and subfolder, kept as a prefix). */
export function safeFileName(filename: string, subfolder = ''): string {
  const clean = (s: string): string =>
    basename(s.replace(/\\/g, '/'))
      .replace(/[\u0000-\u001f<>:"|?*]/g, '_')
      .replace(/^\.+/, '_')
      .trim();
  const name = clean(filename);
  if (!name || name === '_')
    throw new ShotfarmError('bad_input', `The server named an output "${filename}", which is not a usable file name.`);
  const sub = subfolder
    ? subfolder
        .split(/[\\/]+/)
        .map(clean)
        .filter((p) => p && p !== '_')
        .join('_')
    : '';
  return fitName(sub ? `${sub}_${name}` : name);
}

/** Joins and verifies containment; throws rather than ever returning a path outside `dir`. */
export function outputPath(dir: string, filename: string, subfolder = ''): string {
  const full = resolve(dir, safeFileName(filename, subfolder));
  if (!full.startsWith(resolve(dir) + sep)) {
    throw new ShotfarmError('bad_input', `The output name "${filename}" would be written outside ${dir}; refused.`);
  }
  return full;
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  exr: 'image/x-exr',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  json: 'application/json',
  txt: 'text/plain',
};

export function mediaTypeOf(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}
