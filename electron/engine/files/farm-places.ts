/**
 * The farm's own places: the folders and files that are the farm itself, never anyone's input.
 * An input is uploaded to whichever workstation takes the job — a fake ComfyUI of another local
 * user, an operator's "workstation", a farm ComfyUI whose `/view` serves it to the LAN — so an
 * input that resolves here would hand out the control listener's token (engine.lock.json), the
 * key that decrypts the RunPod key (runpod-key.bin) or the database. Checked by real path (after
 * links), and the secret files are also refused by name wherever they sit (a copy is as bad).
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { SettingsReader } from '../settings/setting-reader.js';

/** The file names that are the farm's lock, keys or store: never an input, in any folder. */
const PRIVATE_NAME = /^(engine\.lock.*|runpod-key\.bin.*|shotfarm\.sqlite.*)$/i;

export interface FarmPlaces {
  /** Real paths of the farm's folders (data folder with its uploads store, releases root, output roots). */
  readonly folders: readonly string[];
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * The places of the farm whose store is `dbFile`. The data folder holds the uploads store, the
 * lock record and the key file; releases and output roots may be anywhere the operator set.
 */
export function farmPlaces(dbFile: string, otherFolders: readonly string[]): FarmPlaces {
  const all = [dirname(dbFile), ...otherFolders].filter((f) => f !== '' && f !== ':memory:');
  return { folders: [...new Set(all.map(realOrResolved))] };
}

/** What the farm's settings say about its folders (the handlers' SettingsPort; named here without importing it, no cycle). */
export interface FolderSettings extends SettingsReader {
  readonly folderDefaults: { readonly releases_root: string };
  outputRoots(): string[];
}

/** The places of the farm as its settings stand now: releases (default and set) and every output root. */
export function currentFarmPlaces(dbFile: string, settings: FolderSettings): FarmPlaces {
  return farmPlaces(dbFile, [
    settings.folderDefaults.releases_root,
    settings.get('releases_root'),
    ...settings.outputRoots(),
  ]);
}

/** `file` is `folder` or inside it (both real paths). */
export function within(folder: string, file: string): boolean {
  const rel = relative(folder, file);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Why a real input path is the farm's own (a sentence fragment), or null when it is not. */
export function farmOwnReason(places: FarmPlaces, realPath: string, writtenName: string): string | null {
  if (PRIVATE_NAME.test(basename(realPath)) || PRIVATE_NAME.test(basename(writtenName))) {
    return "is one of the farm's own lock, key or database files, which are never an input";
  }
  if (places.folders.some((f) => within(f, realPath))) {
    return "is inside the farm's own folders (its data folder, uploads store, releases or outputs), which are never an input";
  }
  return null;
}

/**
 * Why a folder a host names for inputs cannot be one: it is inside the farm's own places. (One that
 * holds them is allowed: each input is still checked, and those inside the farm's places refused.)
 */
export function inputsFolderProblem(places: FarmPlaces, folder: string): string | null {
  const real = realOrResolved(folder);
  const clash = places.folders.find((f) => within(f, real));
  return clash
    ? `the inputs folder ${folder} is inside the farm's own folder ${clash}; name a folder of shot-list inputs outside it`
    : null;
}
