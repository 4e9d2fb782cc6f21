/**
 * The token a browser page was opened with, taken out of the address bar at once (so it is not
 * left in the history, a bookmark or a shared screenshot):
 * - `#signin=<token>`, the link `shotfarm users add` prints: a fragment is never sent to the server
 *   nor written in a proxy's log; the page signs in with it (sign-in.ts) and forgets it;
 * - `?token=<token>`, the address `serve` prints for its one shared token (no people): the page keeps
 *   it for this tab (sessionStorage) and sends it only in headers — its socket and file links carry
 *   short-lived tickets (tickets.ts). An older personal link of that form signs in too.
 */
const TOKEN_KEY = 'shotfarm.token';

/** Forgets the kept token: the farm has people, and the browser is signed in by cookie instead. */
export function forgetToken(storage: Storage = window.sessionStorage): void {
  storage.removeItem(TOKEN_KEY);
}
const SIGN_IN = /^#signin=([^&]*)/;

/** Takes `#signin=` or `?token=` from the address bar once; the rest of the address (a job link) stays. */
export function takeLinkToken(loc: Location = window.location): { token: string; from: 'signin' | 'query' } | null {
  const url = new URL(loc.href);
  const signIn = SIGN_IN.exec(url.hash);
  if (signIn) {
    window.history.replaceState(null, '', url.pathname + url.search);
    try {
      const token = decodeURIComponent(signIn[1] ?? '');
      return token ? { token, from: 'signin' } : null;
    } catch {
      return null;
    }
  }
  const fromUrl = url.searchParams.get('token');
  if (!fromUrl) return null;
  url.searchParams.delete('token');
  window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  return { token: fromUrl, from: 'query' };
}

/** The shared token this tab keeps (a farm without people, off loopback). */
export function keptToken(storage: Storage = window.sessionStorage): string | null {
  return storage.getItem(TOKEN_KEY);
}

export function keepToken(token: string, storage: Storage = window.sessionStorage): void {
  storage.setItem(TOKEN_KEY, token);
}
