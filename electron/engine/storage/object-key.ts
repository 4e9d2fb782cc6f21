/**
 * Object keys mirror the output folders (SPEC §8): `<prefix><project>/<episode>/<shot>/<stage>/take-<n>/<file>`,
 * so a bucket listing reads like the output root. Names were validated at import (no slashes, no
 * control characters); the file name is reduced to its base name like a local output.
 */
import { basename } from 'node:path';
import type { TakeKey } from '../../../shared/take-key.js';

export function objectKeyFor(prefix: string, take: TakeKey, fileName: string): string {
  const file = basename(fileName.replace(/\\/g, '/'));
  return `${prefix}${take.project}/${take.episode}/${take.shot}/${take.stage}/take-${take.take}/${file}`;
}
