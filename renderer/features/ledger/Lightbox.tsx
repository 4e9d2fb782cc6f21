/**
 * An output at full size over the page: ← → step through the page's outputs, Space approves,
 * Esc closes; the image fits the window, or shows at its own pixels (1:1) on click.
 */
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import type { AssetView } from '../../../shared/domain.js';
import { bytes } from '../../lib/format.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { useAssetUrl } from '../../store/use-asset-url.js';
import { RevealButton } from './AssetCard.js';

export function Lightbox({
  assets,
  index,
  approved,
  onIndex,
  onApprove,
  onClose,
}: {
  assets: readonly AssetView[];
  index: number;
  approved: (a: AssetView) => boolean;
  onIndex: (i: number) => void;
  onApprove: (a: AssetView) => void;
  onClose: () => void;
}) {
  const { url, onError } = useAssetUrl(assets[index]?.id ?? null);
  const shell = useApp((s) => s.client.shell);
  const [actual, setActual] = useState(false);
  const { may, why } = useMay();
  const a = assets[index];
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const k = e.key;
      if (k === 'Escape') onClose();
      else if (k === 'ArrowRight') onIndex(Math.min(assets.length - 1, index + 1));
      else if (k === 'ArrowLeft') onIndex(Math.max(0, index - 1));
      else if ((k === ' ' || k === 'a' || k === 'A') && a) onApprove(a);
      else return;
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [assets.length, index, a, onApprove, onClose, onIndex]);
  if (!a) return null;
  const image = a.mediaType.startsWith('image/');
  // The desktop's CSP serves only images from its asset scheme; a clip plays in the browser.
  const video = a.mediaType.startsWith('video/') && !shell;
  const on = approved(a);
  return createPortal(
    <div
      className="backdrop lightbox"
      data-testid="lightbox"
      data-asset={a.id}
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        className={`lightbox-stage${actual ? ' lightbox-actual' : ''}`}
        onMouseDown={(e) => e.target === e.currentTarget && onClose()}
      >
        {image && url && (
          <img
            src={url}
            alt={a.fileName}
            onClick={() => setActual(!actual)}
            title={actual ? 'Fit the window' : 'Actual size'}
            onError={onError}
          />
        )}
        {video && url && <video src={url} controls autoPlay loop onError={onError} />}
        {!image && !video && (
          <div className="muted">
            No preview for {a.mediaType}. <RevealButton a={a} />
          </div>
        )}
      </div>
      <footer className="lightbox-bar">
        <span className="truncate">
          <b>
            {a.project} / {a.episode} / {a.shot}
          </b>{' '}
          · {a.stage} · take {a.take}{' '}
          <span className="muted">
            — {a.fileName}
            {a.width && a.height ? ` · ${a.width}×${a.height}` : ''} · {bytes(a.bytes)}
          </span>
        </span>
        <span className="spacer" />
        <span className="muted small">
          {index + 1} / {assets.length} · ← → · Space approves · Esc
        </span>
        <button
          type="button"
          className="btn btn-sm"
          disabled={index === 0}
          onClick={() => onIndex(index - 1)}
          aria-label="Previous"
        >
          ‹
        </button>
        <button
          type="button"
          className="btn btn-sm"
          disabled={index >= assets.length - 1}
          onClick={() => onIndex(index + 1)}
          aria-label="Next"
        >
          ›
        </button>
        <button
          type="button"
          className={`btn btn-sm${on ? ' btn-approved' : ' btn-primary'}`}
          onClick={() => onApprove(a)}
          aria-pressed={on}
          disabled={!may('approvals')}
          title={why('approvals')}
          data-action="lightbox-approve"
          data-needs="approvals"
        >
          {on ? '✓ Approved' : 'Approve'}
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onClose} aria-label="Close">
          ×
        </button>
      </footer>
    </div>,
    document.body,
  );
}
