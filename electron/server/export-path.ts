/**
 * Export paths sent by a browser are resolved inside the server's export folder: a page (perhaps on
 * another machine) may choose a file name there, never an arbitrary place on the server's disk.
 */
import { mkdirSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';

export function confineExportPath(exportDir: string, requested: string): string {
  const root = resolve(exportDir);
  const target = resolve(root, requested);
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new ShotfarmError('bad_input', `Exports are written inside ${root}; choose a file name there (got "${requested}").`);
  }
  if (!/\.csv$/i.test(basename(target))) {
    throw new ShotfarmError('bad_input', 'The export file name must end in .csv.');
  }
  mkdirSync(resolve(target, '..'), { recursive: true });
  return target;
}
