/**
 * The one rule for names that become folders: project, episode, sequence, shot and stage. Outputs
 * land in `<root>/<project>/<episode>/<shot>/<stage>/take-<n>/`, on whatever file system the farm
 * writes to (ext4, NTFS, APFS, an SMB share), and the same names key the job ids — so a name must
 * be one path segment on every one of them, mean the same thing to a person reading it, and never
 * climb out of its parent. Both shot-list readers (JSON and CSV) and the API apply it.
 */

/** Long enough for tracker codes (`sq010_sh0020_fx`), short enough that five of them fit a path. */
export const MAX_NAME_CHARS = 80;
/** One path segment is at most 255 bytes on ext4/APFS; the output file name adds its own part. */
export const MAX_NAME_BYTES = 160;

/** Windows refuses these as a file or folder name, with any extension (`CON.png`), in any case. */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\s*\..*)?$/i;
/** Not allowed in a Windows (or SMB) file name; `/` and `\` would also split the path. */
const FORBIDDEN_PUNCTUATION = /[\\/:*?"<>|]/;
/**
 * Characters that change how a name looks without being seen: C0 and C1 controls, DEL, bidi
 * embeddings/overrides/isolates and marks (U+202E shows `gnp.exe` as `exe.png`), zero-width
 * characters, line/paragraph separators and the BOM.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
/** Half of a surrogate pair with no other half: no file system can store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Letters, digits, `_` and `-` only: no invisible, broken or forbidden character, no dot, no space. */
const PLAIN = /^[A-Za-z0-9_-]+$/;

/** A character outside ASCII: the name's UTF-8 bytes may outnumber its characters. */
const NON_ASCII = /[^\u0000-\u007f]/;

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The name quoted for a message with what cannot be seen written out (`"sh010<U+202E>gnp"`): a
 * bidi override inside a message would otherwise turn the rest of the line around on screen.
 */
function quoted(name: string): string {
  const short = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return `"${short.replace(new RegExp(INVISIBLE.source, 'g'), (ch) => `<${codePoint(ch)}>`).replace(new RegExp(LONE_SURROGATE.source, 'g'), '<?>')}"`;
}

/**
 * What is wrong with `name` as a folder name, in words that say what to change — or null when it
 * is fine. `what` names the field ("shot", "episode") for the message.
 */
export function portableNameProblem(name: string, what = 'name'): string | null {
  // The common tracker code (letters, digits, `_`, `-`): of the rules below only the length and
  // Windows' device names can fail it — two tests instead of ten for every name of a 100k-row list.
  if (PLAIN.test(name) && name.length <= MAX_NAME_CHARS && !RESERVED.test(name)) return null;
  if (name.length === 0) return `${what} must not be empty`;
  // Quoted only for a message: a good name (every row of a 100k-row list) builds nothing.
  const shown = (): string => quoted(name);
  if (name === '.' || name === '..')
    return `${what} ${shown()} is not a name (it would mean the folder itself or its parent)`;
  const invisible = INVISIBLE.exec(name);
  if (invisible)
    return `${what} ${shown()} contains the invisible or control character ${codePoint(invisible[0])}; retype it without`;
  if (LONE_SURROGATE.test(name)) return `${what} ${shown()} contains a broken character (half of a surrogate pair)`;
  const punct = FORBIDDEN_PUNCTUATION.exec(name);
  if (punct)
    return `${what} ${shown()} contains "${punct[0]}", which a folder name cannot hold on every system (\\ / : * ? " < > |)`;
  if (name.length > MAX_NAME_CHARS)
    return `${what} is ${name.length} characters long; at most ${MAX_NAME_CHARS} are allowed`;
  // An ASCII name is as many bytes as characters: encoded only when it may have more.
  const bytes = NON_ASCII.test(name) ? new TextEncoder().encode(name).length : name.length;
  if (bytes > MAX_NAME_BYTES)
    return `${what} ${shown()} is ${bytes} bytes in UTF-8; at most ${MAX_NAME_BYTES} are allowed`;
  if (/^\s|\s$/.test(name)) return `${what} ${shown()} starts or ends with a space`;
  if (name.endsWith('.')) return `${what} ${shown()} ends with a dot, which Windows drops from folder names`;
  if (RESERVED.test(name))
    return `${what} ${shown()} is a reserved device name on Windows (CON, PRN, AUX, NUL, COM1–COM9, LPT1–LPT9); rename it`;
  return null;
}
