/**
 * Shows the farm while the page is signed in (or needs no sign-in: the desktop app, a farm without
 * people), the sign-in screen otherwise. Signing out or a revoked token forgets who the page acted
 * as, so the top bar never names a person the farm no longer accepts.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { SignInState } from '../../client/client.js';
import { useApp, useAppStore } from '../../store/app-store.js';
import { SignInPage } from './SignInPage.js';

export function SignInGate({ children }: { children: ReactNode }) {
  const gate = useApp((s) => s.client.signIn);
  const store = useAppStore();
  const [state, setState] = useState<SignInState>(gate?.state() ?? { signedIn: true });
  useEffect(
    () =>
      gate?.onChange((s) => {
        if (!s.signedIn) store.getState().setSession(null);
        setState(s);
      }),
    [gate, store],
  );
  if (!gate || state.signedIn) return <>{children}</>;
  return <SignInPage gate={gate} state={state} />;
}
