/**
 * The access token of a page served by `shotfarm serve` off loopback: the printed URL carries it as
 * `?token=`; the page keeps it for this tab (sessionStorage) and takes it out of the address bar,
 * so it is not left in the history or in a shared screenshot.
 */
const TOKEN_KEY = 'shotfarm.token';

/** Takes `?token=` from the address bar once, keeps it for this tab, and removes it from the URL. */
export function takeToken(loc: Location = window.location, storage: Storage = window.sessionStorage): string | null {
  const url = new URL(loc.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return storage.getItem(TOKEN_KEY);
}
