/**
 * Text on its way to a terminal. Names, GPU names, errors and file contents come from shot lists,
 * workstations and remote servers; a control character among them (ESC, CR, DEL, C1) can recolour
 * the terminal, move the cursor or rewrite a line, and a bidi control (U+202E…) can reverse what a
 * person reads ("gpu-01" shown for another). The CLI writes them out as `<U+202E>` instead.
 */

/** C0 controls but tab and newline, DEL, C1, and the bidi controls (marks, embeddings, overrides, isolates). */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Inside one value (a table cell, an error line) tab and newline are not layout either. */
const UNPRINTABLE_IN_VALUE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw that a terminal acts on (it escapes C0 itself), and the JS line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const codePoint = (ch: string): string => (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');

/** One value as the terminal may print it: every control written out (`<U+001B>`), tab and newline included. */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE_IN_VALUE, (ch) => `<U+${codePoint(ch)}>`);
}

/** A whole line or block (tables, help): lines and tabs kept, every other control written out. */
export function terminalText(s: string): string {
  return s.replace(UNPRINTABLE, (ch) => `<U+${codePoint(ch)}>`);
}

/** JSON for a terminal or a pipe: the same value once parsed, with nothing raw a terminal would act on (`\u202e`). */
export function terminalJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, (ch) => `\\u${codePoint(ch).toLowerCase()}`);
}
