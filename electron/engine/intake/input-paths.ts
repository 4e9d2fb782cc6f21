/**
 * Where a shot list's input files may be: inside the shot list's own folder, and nowhere else.
 * An input is uploaded to a workstation before its prompt runs, and the API's callers include a
 * token holder on the LAN, a page and a spreadsheet from outside — so a path that is absolute,
 * climbs out with `..`, or is a link leading out of the folder would hand them any file this
 * machine can read (`/etc/passwd`, the farm's own database). Links are followed with realpath and
 * the real file is checked; the farm's own files and folders (farm-places.ts: database, lock record,
 * key file, uploads store, releases, outputs) are refused even inside the folder.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { farmOwnReason, type FarmPlaces } from '../files/farm-places.js';

export type InputCheck = { ok: true; path: string } | { ok: false; message: string };

/** The folder relative inputs resolve in, checked once per import. */
export interface InputFolder {
  /** The folder as given (for messages), or null when the caller could not say. */
  given: string | null;
  /** Its real path, or null with `problem` saying why inputs cannot be found in it. */
  real: string | null;
  problem: string | null;
  /** Real paths that are never an input (the database and its journal files). */
  refused: ReadonlySet<string>;
  /** The farm's own folders and files (farm-places.ts): never an input, by real path or by name. */
  farm?: FarmPlaces;
  /**
   * Files sent with the list (a browser or studio-mode import): input name → the stored upload.
   * When given, an input is looked up here first, and one not here and not in a known folder was
   * not uploaded.
   */
  uploads?: ReadonlyMap<string, string>;
}

const NO_FOLDER =
  "the shot list's folder is not known here (a dropped file, or a call without baseDir), so its input files cannot be found: " +
  'import it with Import… in the desktop app or `shotfarm import FILE`';

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

export function inputFolder(baseDir: string | null | undefined, refusedFiles: readonly string[]): InputFolder {
  const refused = new Set<string>();
  for (const f of refusedFiles) {
    refused.add(resolve(f));
    const r = realOrNull(f);
    if (r) refused.add(r);
  }
  if (baseDir === null || baseDir === undefined || baseDir === '')
    return { given: null, real: null, problem: NO_FOLDER, refused };
  if (!isAbsolute(baseDir))
    return {
      given: baseDir,
      real: null,
      problem: `the shot list's folder "${baseDir}" is not an absolute path`,
      refused,
    };
  const real = realOrNull(baseDir);
  if (!real)
    return { given: baseDir, real: null, problem: `the shot list's folder ${baseDir} does not exist`, refused };
  return { given: baseDir, real, problem: null, refused };
}

/** Absolute on any platform the file may have been written on: `/x`, `\x`, `C:\x`, `C:x`, `\\server\share`. */
function looksAbsolute(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p);
}

function inside(folder: string, file: string): boolean {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Checks one input path as written in the shot list; the answer's path is the real file to upload. */
export function checkInputPath(folder: InputFolder, written: string, param: string): InputCheck {
  const what = `input file "${written.length > 120 ? `${written.slice(0, 120)}…` : written}" for "${param}"`;
  if (written.includes('\0')) return { ok: false, message: `${what} contains a NUL character` };
  if (looksAbsolute(written))
    return {
      ok: false,
      message: `${what} is an absolute path; inputs are given relative to the shot list's folder (e.g. plates/sh010.png)`,
    };
  if (written.split(/[\\/]/).includes('..'))
    return { ok: false, message: `${what} climbs out of the shot list's folder with ".."; inputs must be inside it` };
  // By its path as written; else a file sent without its folders (the list plus its images) by its name alone.
  const key = written.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const uploaded = folder.uploads?.get(key) ?? folder.uploads?.get(key.slice(key.lastIndexOf('/') + 1));
  if (uploaded) return { ok: true, path: uploaded };
  if (!folder.uploads) return inFolder(folder, written, what);
  const found = inFolder(folder, written, what);
  return found.ok
    ? found
    : {
        ok: false,
        message: `${what} is missing: it was not sent with the shot list (drop the folder, or the list together with its images)`,
      };
}

/** An input in the shot list's own folder (links followed, confined to it). */
function inFolder(folder: InputFolder, written: string, what: string): InputCheck {
  if (folder.problem || !folder.real) return { ok: false, message: `${what}: ${folder.problem ?? NO_FOLDER}` };
  const full = resolve(folder.real, written);
  const real = realOrNull(full);
  if (!real) return { ok: false, message: `${what} does not exist or cannot be read in the shot list's folder` };
  // The farm's own files first: the refusal names what they are, wherever a link points.
  if (folder.refused.has(real))
    return { ok: false, message: `${what} is the farm's own database, which is never an input` };
  const own = folder.farm ? farmOwnReason(folder.farm, real, written) : null;
  if (own) return { ok: false, message: `${what} ${own}` };
  if (!inside(folder.real, real))
    return {
      ok: false,
      message: `${what} is a link to a file outside the shot list's folder; copy the file into the folder instead`,
    };
  try {
    if (!statSync(real).isFile()) return { ok: false, message: `${what} is not a file in the shot list's folder` };
    accessSync(real, constants.R_OK);
  } catch {
    return { ok: false, message: `${what} does not exist or cannot be read in the shot list's folder` };
  }
  return { ok: true, path: real };
}
