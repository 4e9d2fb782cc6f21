/**
 * "Copy link": the address names this queue view (its filter, sort and the open job), so sending it
 * to a colleague shows them the same rows. Where the browser refuses the clipboard (a farm served
 * over plain http off this machine is not a secure context), the link is shown selected instead.
 */
import { useEffect, useRef, useState } from 'react';
import { useApp } from '../../store/app-store.js';

export function CopyLink() {
  const notify = useApp((s) => s.notify);
  const [shown, setShown] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (shown === null) return;
    input.current?.select();
    const away = (e: MouseEvent) => !box.current?.contains(e.target as Node) && setShown(null);
    window.addEventListener('mousedown', away);
    return () => window.removeEventListener('mousedown', away);
  }, [shown]);
  const copy = async () => {
    const href = window.location.href;
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(href);
      notify('success', 'Link to this view copied');
    } catch {
      setShown(href);
    }
  };
  return (
    <div className="saved-views" ref={box}>
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => void copy()}
        data-testid="copy-link"
        title="Copy the address of this view (filters, order, open job) to send to someone"
      >
        Copy link
      </button>
      {shown !== null && (
        <div className="popover copy-link-pop" role="dialog" aria-label="Link to this view">
          <div className="muted small pad">Copy this link (Ctrl+C):</div>
          <input
            ref={input}
            className="input input-sm"
            readOnly
            value={shown}
            data-testid="copy-link-text"
            onKeyDown={(e) => e.key === 'Escape' && setShown(null)}
          />
        </div>
      )}
    </div>
  );
}
