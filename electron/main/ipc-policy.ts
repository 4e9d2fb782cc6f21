/**
 * What the IPC handlers do, kept out of `ipcMain.handle` so it is tested in Node: turn a page's call
 * into a host call and its outcome into a `CallAnswer`; read a chosen shot list; check a path to
 * reveal. No domain logic — the engine validates and decides. The rules applied here are the
 * page's limits: the local-only methods are refused as the headless server refuses them
 * (hosting/reach-refusal.ts), and so is every other method the UI does not use (PAGE_METHODS); export
 * files go inside the app's export folder, never at a path a page picked; and an import's `baseDir`
 * (where its input images are read from, and uploaded to workstations) is only a folder the
 * operator chose — the folder of a file picked in this app's Import dialog. A dropped file is read
 * by the page and has no folder: its preview says its inputs cannot be found, and Import… gives
 * them one.
 */
import { stat, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { isApiMethod, type ApiMethod } from '../../shared/api.js';
import type { ExportResult } from '../../shared/domain.js';
import { errorEnvelope, ShotfarmError, toErrorEnvelope, type ErrorEnvelope } from '../../shared/errors.js';
import { exportFileName, exportFilterSchema, isExportKind } from '../../shared/exports.js';
import { describeIssues } from '../../shared/shot-list-schema.js';
import { confineExportInput } from '../engine/hosting/export-path.js';
import { desktopPageRefusal } from '../engine/hosting/reach-refusal.js';
import type { CallAnswer, RevealAnswer, SaveExportAnswer, ShotListFile } from '../preload/channels.js';

export interface CallTarget {
  call(method: ApiMethod, input: unknown): Promise<unknown>;
}

/** The contract caps an import at 256 MB; refuse before reading more than that into memory. */
export const MAX_SHOT_LIST_BYTES = 256 * 1024 * 1024;

/** The folders of the shot lists picked in the Import dialog this session: the only import baseDirs a page may send. */
export class PickedFolders {
  private readonly folders = new Set<string>();

  add(folder: string): void {
    this.folders.add(resolve(folder));
    // A session picks a handful; keep the newest few hundred at most.
    if (this.folders.size > 200) this.folders.delete(this.folders.values().next().value as string);
  }

  has(folder: string): boolean {
    return isAbsolute(folder) && this.folders.has(resolve(folder));
  }
}

export interface PagePolicy {
  exportDir: string;
  picked: PickedFolders;
}

/** An import.preview whose baseDir the operator did not choose is refused before the engine sees it. */
function checkImportFolder(method: ApiMethod, input: unknown, picked: PickedFolders): ErrorEnvelope | null {
  if (method !== 'import.preview' || typeof input !== 'object' || input === null) return null;
  const baseDir = (input as { baseDir?: unknown }).baseDir;
  if (baseDir === undefined) return null;
  if (typeof baseDir === 'string' && picked.has(baseDir)) return null;
  return errorEnvelope(
    'bad_input',
    "The shot list's folder (baseDir) must be the folder of a file picked with Import… in this window; input images are read only from there.",
  );
}

export async function answerCall(
  target: CallTarget,
  method: unknown,
  input: unknown,
  o: PagePolicy,
): Promise<CallAnswer> {
  if (!isApiMethod(method)) {
    return { ok: false, error: errorEnvelope('not_found', `Unknown method ${String(method).slice(0, 80)}.`) };
  }
  // The page is the same Studio UI a browser gets from `serve`: it is refused what the server
  // refuses, and anything else its views do not call (the method table's reach).
  const refusedHere = desktopPageRefusal(method, input);
  if (refusedHere) return { ok: false, error: refusedHere };
  const refused = checkImportFolder(method, input, o.picked);
  if (refused) return { ok: false, error: refused };
  try {
    return { ok: true, result: await target.call(method, confineExportInput(method, input, o.exportDir)) };
  } catch (err) {
    return { ok: false, error: toErrorEnvelope(err) };
  }
}

/**
 * A CSV export to where the operator's save dialog says: the page names the kind and the filters,
 * never a path. The dialog proposes a dated name; the path it answers is the operator's own choice,
 * so it is not confined to the export folder (the engine still never replaces a file there).
 */
export async function answerSaveExport(
  target: CallTarget,
  kind: unknown,
  filter: unknown,
  choosePath: (defaultName: string) => Promise<string | null>,
  now = new Date(),
): Promise<SaveExportAnswer> {
  if (!isExportKind(kind))
    return { ok: false, error: errorEnvelope('bad_input', 'Choose the run log or the ledger to export.') };
  const f = exportFilterSchema.safeParse(filter ?? {});
  if (!f.success)
    return {
      ok: false,
      error: errorEnvelope('bad_input', `The export's filters are not valid: ${describeIssues(f.error).join('; ')}`),
    };
  try {
    const chosen = await choosePath(exportFileName(kind, now));
    if (!chosen) return { ok: true, result: null };
    const path = /\.csv$/i.test(chosen) ? chosen : `${chosen}.csv`;
    // The engine answers export.* with an ExportResult (the contract's ApiOutputs).
    const result = (await target.call(kind === 'runlog' ? 'export.runlog' : 'export.ledger', {
      ...f.data,
      path,
    })) as ExportResult;
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: toErrorEnvelope(err) };
  }
}

export async function readShotListFile(path: string, maxBytes = MAX_SHOT_LIST_BYTES): Promise<ShotListFile> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new ShotfarmError('bad_input', `${path} is not a file.`);
    if (s.size > maxBytes)
      throw new ShotfarmError(
        'bad_input',
        `${basename(path)} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`,
      );
    return { fileName: basename(path), content: await readFile(path, 'utf8'), baseDir: dirname(path) };
  } catch (err) {
    if (err instanceof ShotfarmError) throw err;
    throw new ShotfarmError('storage', `${basename(path)} could not be read: ${(err as Error).message}`);
  }
}

/** `shell.showItemInFolder` only opens a file manager, but the path still comes from a page: check it. */
export async function checkRevealPath(
  path: unknown,
): Promise<{ ok: true; path: string } | { ok: false; error: ErrorEnvelope }> {
  const bad = (message: string): { ok: false; error: ErrorEnvelope } => ({
    ok: false,
    error: errorEnvelope('bad_input', message),
  });
  if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0'))
    return bad('Give a file path to show.');
  if (!isAbsolute(path) || /^[\\/]{2}/.test(path)) return bad('Only absolute paths on this computer can be shown.');
  try {
    await stat(path);
  } catch {
    return { ok: false, error: errorEnvelope('not_found', `${path} does not exist (any more).`) };
  }
  return { ok: true, path };
}

export type { RevealAnswer };
