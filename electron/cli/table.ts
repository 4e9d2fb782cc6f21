/** Plain-text tables for the terminal: columns padded to their widest cell, long cells cut with "…". */

/** Controls, DEL, C1 and bidi controls: in a terminal they move the cursor, recolour, or reverse the line. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text from a file or a server as the terminal may print it: what would act on the terminal is written out (`<U+001B>`). */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (ch) => `<U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`);
}

export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[], maxWidth = 48): string {
  const cells = [header, ...rows].map((r) =>
    r.map((c) => {
      const s = c === null || c === undefined ? '' : printable(String(c));
      return s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s;
    }),
  );
  // A loop, not Math.max(...column): spreading 130,000 cells as arguments overflows the call stack.
  const widths = header.map(() => 0);
  for (const r of cells) {
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i] ?? 0, (r[i] ?? '').length);
  }
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

export function formatTime(ms: number | null): string {
  if (ms === null) return '';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
