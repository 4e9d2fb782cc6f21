/** Reads a dropped/picked shot list as text, refusing what cannot be one (binary, empty, huge). */
const MAX_BYTES = 64 * 1024 * 1024;

export type ReadResult =
  | {
      ok: true;
      name: string;
      content: string /** Where the file is, when the desktop dialog knows it. */;
      baseDir?: string;
      /** Input files sent with it (a browser or studio-mode import): input name → uploaded SHA-256. */
      uploads?: Record<string, string>;
    }
  | { ok: false; name: string; message: string };

/** The checks on the text itself, shared by the browser's File and the desktop dialog's answer. */
export function checkShotListText(name: string, content: string, baseDir?: string): ReadResult {
  if (content.trim() === '') return { ok: false, name, message: `${name} is empty.` };
  // Text files never hold NUL bytes; images, archives and spreadsheets (.xlsx) do.
  if (content.slice(0, 8192).includes('\u0000')) {
    return {
      ok: false,
      name,
      message: `${name} is not a text file. Export the shot list as CSV or JSON and drop that.`,
    };
  }
  return baseDir ? { ok: true, name, content, baseDir } : { ok: true, name, content };
}

export async function readShotListFile(file: File): Promise<ReadResult> {
  if (file.size > MAX_BYTES)
    return {
      ok: false,
      name: file.name,
      message: `${file.name} is ${Math.round(file.size / 1024 / 1024)} MB; shot lists over 64 MB are refused.`,
    };
  let content: string;
  try {
    content = await file.text();
  } catch {
    return {
      ok: false,
      name: file.name,
      message: `${file.name} could not be read (is it still on disk, and readable?).`,
    };
  }
  return checkShotListText(file.name, content);
}
