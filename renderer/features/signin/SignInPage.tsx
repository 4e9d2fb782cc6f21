/**
 * The sign-in screen of a browser page on a farm with people: shown instead of the farm while the
 * page is not signed in, with the reason (no token yet, a token the farm does not know, a revoked
 * one, too many wrong ones, signed out). The address's `#/…` part (a shared job link) is left as it
 * is, so the farm opens on it once signed in.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { SignInCapability, SignInReason, SignInState } from '../../client/client.js';
import { parseHash } from '../../lib/paths.js';

const HEADLINE: Record<SignInReason, string> = {
  missing: 'Sign in with your access token',
  unknown: 'That access token is not valid',
  revoked: 'Your access token was revoked',
  slowed: 'Too many wrong access tokens',
  'signed-out': 'You signed out',
};

const HELP: Record<SignInReason, string> = {
  missing:
    'An admin gives each person their own token (shotfarm users add NAME --role ROLE on the farm host prints it once, with a link that signs you in).',
  unknown: 'Check that it was pasted whole: a token that was replaced stops working.',
  revoked: 'Once an admin gives you a new one, sign in with it here.',
  slowed: 'Wrong tokens from this address are slowed down to stop guessing; a valid token still signs in at once.',
  'signed-out': 'This browser no longer remembers you. Sign in again with your token.',
};

export function SignInPage({
  gate,
  state,
}: {
  gate: SignInCapability;
  state: Extract<SignInState, { signedIn: false }>;
}) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  // The page has one thing to do: the token field takes the keyboard at once (and again after a refusal).
  useEffect(() => field.current?.focus(), []);
  const target = parseHash(window.location.hash);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const next = await gate.signIn(token.trim());
      // A refusal becomes the gate's state and re-renders this page with its reason; only "did not
      // answer" (the state left as it was) needs a note of its own.
      setNote(!next.signedIn && next !== gate.state() ? next.message : null);
      if (!next.signedIn) setToken('');
    } finally {
      setBusy(false);
      field.current?.focus();
    }
  };
  const error = state.reason === 'unknown' || state.reason === 'revoked' || state.reason === 'slowed';
  return (
    <div className="signin-page">
      <form
        className="signin-card"
        onSubmit={(e) => void submit(e)}
        data-testid="signin-page"
        data-reason={state.reason}
      >
        <div className="signin-brand">
          <span className="logo" aria-hidden>
            ◆
          </span>{' '}
          Shotfarm
        </div>
        <h1 className="signin-title" data-testid="signin-headline">
          {HEADLINE[state.reason]}
        </h1>
        {error && (
          <div className="alert alert-error" role="alert" data-testid="signin-reason">
            {state.message}
          </div>
        )}
        <p className="muted">{HELP[state.reason]}</p>
        <label className="field">
          <span className="field-label">Personal access token</span>
          <input
            className="input"
            type="password"
            autoComplete="off"
            spellCheck={false}
            ref={field}
            value={token}
            onChange={(e) => setToken(e.target.value)}
            data-testid="signin-token"
          />
        </label>
        {note && (
          <div className="alert alert-error" role="alert">
            {note}
          </div>
        )}
        <div className="signin-actions">
          {(target.jobId || target.params) && (
            <span className="muted small" data-testid="signin-then">
              Then opens the {target.jobId ? 'job' : 'queue view'} you were sent.
            </span>
          )}
          <span className="spacer" />
          <button
            className="btn btn-primary"
            type="submit"
            disabled={busy || token.trim() === ''}
            data-testid="signin-submit"
          >
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </div>
        <p className="muted small">
          This browser remembers the sign-in (an HttpOnly cookie of this farm, for 30 days, ended at once by a revoked
          token) until you sign out.
        </p>
      </form>
    </div>
  );
}
