/** Plain-text tables for the terminal: columns padded to their widest cell, long cells cut with "…". */
export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[], maxWidth = 48): string {
  const cells = [header, ...rows].map((r) =>
    r.map((c) => {
      const s = c === null || c === undefined ? '' : String(c);
      return s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s;
    }),
  );
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

export function formatTime(ms: number | null): string {
  if (ms === null) return '';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
