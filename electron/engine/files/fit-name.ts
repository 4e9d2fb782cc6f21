/**
 * Names that every file system Shotfarm may write outputs to takes (ext4, APFS, NTFS, SMB shares):
 * at most MAX_NAME_BYTES of UTF-8 — a longer name keeps its start and extension and gets a short
 * hash of the whole, so two long names stay two files — no Windows device name (CON, NUL, COM1 …,
 * with any extension), no trailing dot or space (Windows drops them: `a.` and `a` would be one
 * file), no separators or characters Windows refuses. A name that already fits is left as it is.
 */
import { createHash } from 'node:crypto';

/** Well under the 255-byte limit of ext4/APFS/NTFS: room for our temp names and other tools' suffixes. */
export const MAX_NAME_BYTES = 200;
/** An extension longer than this is part of the stem when shortening (it is no real extension). */
const MAX_EXT_BYTES = 16;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\.|$)/i;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The longest start of `s` within `max` UTF-8 bytes, never splitting a character. */
function headWithin(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (bytes(out) + bytes(ch) > max) break;
    out += ch;
  }
  return out;
}

/** Characters no portable name holds: separators, controls and what Windows refuses. */
export function withoutUnsafeCharacters(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_');
}

/** `name`, made to fit: see the module comment. Never empty for a non-empty input. */
export function fitName(name: string): string {
  let n = withoutUnsafeCharacters(name).replace(/[. ]+$/, (tail) => '_'.repeat(tail.length));
  if (WINDOWS_DEVICE.test(n)) n = `_${n}`;
  if (bytes(n) <= MAX_NAME_BYTES) return n;
  const dot = n.lastIndexOf('.');
  const ext = dot > 0 && bytes(n.slice(dot)) <= MAX_EXT_BYTES ? n.slice(dot) : '';
  const mark = `~${createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
  return `${headWithin(n.slice(0, n.length - ext.length), MAX_NAME_BYTES - bytes(mark) - bytes(ext))}${mark}${ext}`;
}
