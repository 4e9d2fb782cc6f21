/**
 * Picks the transport: in the desktop app the preload bridge says which farm (its own engine over
 * IPC, or a studio farm over HTTP/WebSocket: desktop-client.ts); in a browser, the server it came from.
 */
import type { ShotfarmClient, SignInState } from './client.js';
import { createDesktopClient } from './desktop-client.js';
import { forgetToken, keepToken, keptToken, takeLinkToken } from './page-token.js';
import type { Refusal } from './refusal.js';
import { postSignIn, probeSession, refusedState, signInGate, type SessionProbe } from './sign-in.js';
import { createWsClient } from './ws-transport.js';

/**
 * A browser page: a token it was opened with (or kept for this tab) is offered to the farm once.
 * A farm with people signs the browser in by cookie; one without keeps today's shared token for
 * the tab. With no token the cookie says who is signed in — or why not, and the page shows its
 * sign-in screen instead of the farm.
 */
async function createBrowserClient(): Promise<ShotfarmClient> {
  const baseUrl = window.location.origin;
  const base = new URL(baseUrl);
  const offered = takeLinkToken()?.token ?? keptToken();
  let probe: SessionProbe;
  if (offered) {
    probe = await postSignIn(base, offered);
    if (probe.kind === 'no-people') {
      keepToken(offered);
      // The token goes in headers; the socket and file links carry short-lived tickets (tickets.ts).
      const shared = createWsClient({ baseUrl, token: offered });
      await shared.linksReady;
      return shared;
    }
    forgetToken();
  } else {
    probe = await probeSession(base);
  }
  // Unreachable: shown as today (the banner), and the socket's reconnects ask again.
  const initial: SignInState = probe.kind === 'refused' ? refusedState(probe.refusal) : { signedIn: true };
  let gate: ReturnType<typeof signInGate> | null = null;
  const ws = createWsClient({
    baseUrl,
    token: null,
    suspended: !initial.signedIn,
    onRefused: (r: Refusal) => gate?.refused(r),
  });
  gate = signInGate(base, initial, ws);
  return { ...ws, signIn: gate };
}

export async function createClient(): Promise<ShotfarmClient> {
  return window.shotfarm ? createDesktopClient(window.shotfarm) : createBrowserClient();
}

export * from './client.js';
