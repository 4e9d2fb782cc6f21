/**
 * Starts a browser download of a URL the server answers with `Content-Disposition: attachment`
 * (a CSV export): the page stays where it is and the browser saves the file under the server's
 * dated name, or asks where, as the browser is set up to.
 */
export function startDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  // The name comes from the server's Content-Disposition; `download` only keeps the page in place.
  a.download = '';
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
}
