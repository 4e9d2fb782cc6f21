/** Plain-text tables for the terminal: columns padded to their widest cell, long cells cut with "…". */

import { printable } from './terminal-text.js';

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
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function formatTime(ms: number | null): string {
  if (ms === null) return '';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
