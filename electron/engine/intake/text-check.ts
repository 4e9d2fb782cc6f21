/**
 * Refuses what is not a shot list before parsing it: files too large to be one, and binary data
 * (an image or a spreadsheet dropped by mistake), with a message that names the file.
 */
import { ShotfarmError } from '../../../shared/errors.js';

/** 32 MiB is ~300,000 CSV rows: anything larger is a mistake or belongs in several imports. */
export const MAX_SHOT_LIST_BYTES = 32 * 1024 * 1024;

export function checkShotListSize(fileName: string, bytes: number): void {
  if (bytes > MAX_SHOT_LIST_BYTES) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} is ${(bytes / 1024 / 1024).toFixed(1)} MB; shot lists over ${MAX_SHOT_LIST_BYTES / 1024 / 1024} MB are refused. Split it into several files.`,
    );
  }
}

export function checkShotListText(fileName: string, content: string): void {
  checkShotListSize(fileName, Buffer.byteLength(content, 'utf8'));
  const nul = content.indexOf('\u0000');
  // U+FFFD is what undecodable bytes become when binary data is read as UTF-8.
  const replaced = (content.slice(0, 65536).match(/\uFFFD/g) ?? []).length;
  if (nul >= 0 || replaced > 8) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} does not look like a shot list: it contains binary data${nul >= 0 ? ` (at character ${nul})` : ''}. Export the list as JSON or CSV (UTF-8).`,
    );
  }
}
