/**
 * The desktop app's "Join Studio Farm…" (File menu, or the first start's choice): the farm's
 * address and the person's token. The shell checks the farm answers with that token before it
 * keeps anything (the token encrypted with the OS's key), then restarts the app on the farm.
 * Shown only where the client has the farm-choice capability (the desktop app).
 */
import { useEffect, useState } from 'react';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';

export function JoinStudioDialog() {
  const farmChoice = useApp((s) => s.client.farmChoice);
  const [open, setOpen] = useState(farmChoice?.askJoin ?? false);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => farmChoice?.onJoinRequest(() => setOpen(true)), [farmChoice]);
  if (!farmChoice || !open) return null;

  const join = async () => {
    setBusy(true);
    try {
      await farmChoice.join(url, token);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Join Studio Farm"
      onClose={() => setOpen(false)}
      footer={
        <>
          <span className="spacer" />
          <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy || url.trim() === '' || token.trim() === ''}
            onClick={() => void join()}
            data-testid="join-studio"
          >
            {busy ? 'Checking…' : 'Join and restart'}
          </button>
        </>
      }
    >
      <div className="pad">
        {farmChoice.mode === 'studio' && <p className="muted">Now on the studio farm at {farmChoice.origin}.</p>}
        <label className="field">
          <span className="field-label">Farm address</span>
          <input
            className="input"
            value={url}
            placeholder="http://farm-host:8080"
            onChange={(e) => setUrl(e.target.value)}
            data-testid="studio-url"
          />
        </label>
        <label className="field">
          <span className="field-label">Personal token</span>
          <input
            className="input"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            data-testid="studio-token"
          />
        </label>
        <p className="muted">
          The token is kept encrypted by this computer&apos;s keychain, never in a plain file. In studio mode this app
          runs no farm of its own.
        </p>
        {error && (
          <div className="alert alert-error" role="alert">
            {error}
          </div>
        )}
      </div>
    </Modal>
  );
}
