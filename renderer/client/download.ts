/**
 * Starts a browser download of a URL the server answers with `Content-Disposition: attachment`
 * (a CSV export): the page stays where it is and the browser saves the file under the server's
 * dated name, or asks where, as the browser is set up to. A URL of another origin (the desktop app
 * in studio mode, whose page is a file of the app) is fetched first — an `<a download>` to another
 * origin would navigate instead — and saved from memory under the server's name.
 */
import { downloadName } from './download-name.js';

export async function startDownload(
  url: string,
  pageOrigin: string = (globalThis as { location?: { origin: string } }).location?.origin ?? '',
): Promise<void> {
  const target = new URL(url, pageOrigin || undefined);
  if (target.origin === pageOrigin) return clickLink(url, '');
  const res = await fetch(target);
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: unknown } } | null;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `the farm answered ${res.status}`;
    throw new Error(`The export did not download: ${message}`);
  }
  const name = downloadName(res.headers.get('content-disposition'));
  const blobUrl = URL.createObjectURL(await res.blob());
  clickLink(blobUrl, name);
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
}

function clickLink(href: string, name: string): void {
  const a = document.createElement('a');
  a.href = href;
  // Same origin: the name comes from the server's Content-Disposition; `download` keeps the page in place.
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
}
