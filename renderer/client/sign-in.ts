/**
 * A browser page's sign-in to a farm with people (docs/studio-farm.md → Signing in). The token is
 * sent once (`POST /api/session`); the server keeps it in an HttpOnly cookie, so the page never
 * holds it and no URL it requests carries it. Any request refused for who is asking — a revoked
 * token included, noticed by a call or by the events socket — turns the page to its sign-in screen
 * with the reason; signing in again resumes the events socket, whose reconnect refetches everything.
 */
import type { SignInCapability, SignInState } from './client.js';
import { refusalOf, type Refusal } from './refusal.js';

const CSRF = { 'x-shotfarm-request': '1' };

/** What `/api/session` says about this browser: signed in, refused (why), or a farm without people. */
export type SessionProbe =
  | { kind: 'signed-in' }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'no-people' }
  | { kind: 'unreachable' };

async function answerOf(res: Response): Promise<SessionProbe> {
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) {
    const people = (body as { people?: unknown } | null)?.people;
    return people === false ? { kind: 'no-people' } : { kind: 'signed-in' };
  }
  if (res.status === 404) return { kind: 'no-people' };
  const refusal = refusalOf(res.status, body);
  return refusal ? { kind: 'refused', refusal } : { kind: 'unreachable' };
}

/** Who this browser is signed in as, by its cookie. */
export async function probeSession(base: URL): Promise<SessionProbe> {
  try {
    return await answerOf(await fetch(new URL('/api/session', base), { credentials: 'same-origin' }));
  } catch {
    return { kind: 'unreachable' };
  }
}

/** Signs this browser in with a token (the server sets the cookie). */
export async function postSignIn(base: URL, token: string): Promise<SessionProbe> {
  try {
    const res = await fetch(new URL('/api/session', base), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', ...CSRF },
      body: JSON.stringify({ token }),
    });
    return await answerOf(res);
  } catch {
    return { kind: 'unreachable' };
  }
}

export function refusedState(r: Refusal): SignInState {
  return { signedIn: false, reason: r.reason, message: r.message };
}

/** The sign-in capability over a transport that can stop and restart its events socket. */
export function signInGate(
  base: URL,
  initial: SignInState,
  socket: { suspend(): void; resume(): void },
): SignInCapability & { refused(r: Refusal): void } {
  let state = initial;
  const fns = new Set<(s: SignInState) => void>();
  const set = (s: SignInState): void => {
    state = s;
    if (s.signedIn) socket.resume();
    else socket.suspend();
    for (const fn of fns) fn(s);
  };
  return {
    state: () => state,
    onChange(fn) {
      fns.add(fn);
      return () => fns.delete(fn);
    },
    refused(r) {
      set(refusedState(r));
    },
    async signIn(token) {
      const probe = await postSignIn(base, token);
      if (probe.kind === 'refused') set(refusedState(probe.refusal));
      else if (probe.kind === 'unreachable')
        return {
          signedIn: false,
          reason: state.signedIn ? 'missing' : state.reason,
          message: 'The farm did not answer; check that it runs and try again.',
        };
      else set({ signedIn: true });
      return state;
    },
    async signOut() {
      await fetch(new URL('/api/session', base), { method: 'DELETE', credentials: 'same-origin', headers: CSRF }).catch(
        () => undefined,
      );
      set({ signedIn: false, reason: 'signed-out', message: 'You signed out.' });
    },
  };
}
