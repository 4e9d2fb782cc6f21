/** Pure (no DOM): the file name a Content-Disposition header gives (the server's dated name), else a plain one. */
export function downloadName(disposition: string | null): string {
  const m = /filename="?([^";]+)"?/i.exec(disposition ?? '');
  return m?.[1]?.replace(/[/\\]/g, '_') || 'shotfarm-export.csv';
}
