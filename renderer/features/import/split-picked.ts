/**
 * What was dropped or picked, split into the shot list and its input files (pure, no DOM: tested
 * in Node). Each input is named by its path relative to the list's folder, as the list writes it.
 */
/** A file and its path inside what was dropped ("shots/plates/sh010.png"; just the name when no folder was). */
export interface PickedFile {
  file: File;
  path: string;
}

const LIST_NAME = /\.(json|csv|tsv|txt)$/i;

export type SplitFiles =
  | { ok: true; list: PickedFile; inputs: { name: string; file: File }[] }
  | { ok: false; message: string };

/** The shot list (the shallowest list file) and the other files, named relative to the list's folder. */
export function splitPicked(picked: readonly PickedFile[]): SplitFiles {
  // One file is the list, whatever its name: the preview then says what is wrong with it.
  if (picked.length === 1) return { ok: true, list: picked[0] as PickedFile, inputs: [] };
  const lists = picked.filter((p) => LIST_NAME.test(p.file.name));
  if (lists.length === 0)
    return {
      ok: false,
      message:
        'None of the dropped files is a shot list (JSON or CSV); drop the list together with its images, or its folder.',
    };
  const depth = (p: PickedFile) => p.path.split('/').length;
  const list = [...lists].sort((a, b) => depth(a) - depth(b))[0] as PickedFile;
  const folder = list.path.includes('/') ? list.path.slice(0, list.path.lastIndexOf('/') + 1) : '';
  const inputs = picked
    .filter((p) => p !== list && !LIST_NAME.test(p.file.name) && p.path.startsWith(folder))
    .map((p) => ({ name: p.path.slice(folder.length), file: p.file }));
  return { ok: true, list, inputs };
}
