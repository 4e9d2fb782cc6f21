/**
 * Export paths sent by a page are resolved inside the host's export folder: a page (on another
 * machine behind `serve`, or the desktop's own) may choose a file name there, never an arbitrary
 * place on the disk. Both hosts apply this to what a page sends before the engine sees it.
 */
import { mkdirSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import type { ApiMethod } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';

export function confineExportPath(exportDir: string, requested: string): string {
  const root = resolve(exportDir);
  const target = resolve(root, requested);
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new ShotfarmError(
      'bad_input',
      `Exports are written inside ${root}; choose a file name there (got "${requested}").`,
    );
  }
  if (!/\.csv$/i.test(basename(target))) {
    throw new ShotfarmError('bad_input', 'The export file name must end in .csv.');
  }
  mkdirSync(resolve(target, '..'), { recursive: true });
  return target;
}

/** A page's call with its export path, if it has one, confined to `exportDir`; other calls unchanged. */
export function confineExportInput(method: ApiMethod, input: unknown, exportDir: string): unknown {
  if (
    (method === 'export.runlog' || method === 'export.ledger') &&
    input &&
    typeof input === 'object' &&
    'path' in input
  ) {
    const path = (input as { path: unknown }).path;
    if (typeof path === 'string' && path.length > 0) return { ...input, path: confineExportPath(exportDir, path) };
  }
  return input;
}
