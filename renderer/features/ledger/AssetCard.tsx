/** One output in the ledger grid: its thumbnail (click: full size), where it belongs, how it was made, approval and selection. */
import type { AssetView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { bytes, dateTime } from '../../lib/format.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';
import { useAssetUrl } from '../../store/use-asset-url.js';

function Thumb({ asset, onOpen }: { asset: AssetView; onOpen: () => void }) {
  const { url, onError } = useAssetUrl(asset.mediaType.startsWith('image/') ? asset.id : null);
  return (
    <button
      type="button"
      className="thumb"
      onClick={onOpen}
      tabIndex={-1}
      title="Full size (Enter)"
      data-action="preview"
    >
      {url ? (
        <img src={url} alt={asset.fileName} loading="lazy" onError={onError} />
      ) : (
        <span className="muted small">{asset.mediaType.split('/')[1] ?? 'file'}</span>
      )}
    </button>
  );
}

/** Desktop only (the client's shell capability): the file in the OS file manager. */
export function RevealButton({ a }: { a: AssetView }) {
  const shell = useApp((s) => s.client.shell);
  const notify = useApp((s) => s.notify);
  if (!shell) return null;
  return (
    <button
      type="button"
      className="btn btn-ghost reveal"
      tabIndex={-1}
      onClick={() => shell.revealFile(a.path).catch((err: unknown) => notify('error', errorMessage(err)))}
      title={a.path}
      data-action="reveal"
    >
      Show in folder
    </button>
  );
}

export interface CardProps {
  a: AssetView;
  approved: boolean;
  selected: boolean;
  focused: boolean;
  onApprove: () => void;
  onOpen: () => void;
  onSelect: (mods: { shift: boolean; toggle: boolean }) => void;
  onFocus: () => void;
}

export function AssetCard({ a, approved, selected, focused, onApprove, onOpen, onSelect, onFocus }: CardProps) {
  const { may, why } = useMay();
  return (
    <article
      role="gridcell"
      className={`asset${approved ? ' asset-approved' : ''}${selected ? ' asset-selected' : ''}`}
      data-asset={a.id}
      data-shot={a.shot}
      aria-selected={selected}
      tabIndex={focused ? 0 : -1}
      onFocus={onFocus}
      onClick={(e) =>
        (e.shiftKey || e.ctrlKey || e.metaKey) && onSelect({ shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey })
      }
    >
      <label className="asset-pick" title="Select (X)" onClick={(e) => e.stopPropagation()}>
        <input
          type="checkbox"
          tabIndex={-1}
          checked={selected}
          onChange={() => onSelect({ shift: false, toggle: true })}
          aria-label={`Select ${a.fileName}`}
        />
      </label>
      <Thumb asset={a} onOpen={onOpen} />
      <div className="asset-body">
        <div className="asset-title truncate">
          <b>{a.shot}</b> · {a.stage} <span className="muted">take {a.take}</span>
        </div>
        <div className="muted small truncate" title={`${a.project} / ${a.episode}`}>
          {a.project} / {a.episode}
        </div>
        <div className="muted small truncate" title={a.path}>
          {a.fileName}
        </div>
        <div className="muted small truncate">
          {a.width && a.height ? `${a.width}×${a.height} · ` : ''}
          {bytes(a.bytes)} · {dateTime(a.createdAt)}
        </div>
        <div className="muted small truncate" title={`${a.templateName} on ${a.instanceName ?? '—'}`}>
          {a.templateName} · {a.instanceName ?? '—'}
        </div>
        {/* The seed on a line of its own: a lead copies it whole to render the take again. */}
        <div className="muted small truncate" title={`seed ${a.seed ?? '—'}`}>
          seed <span className="mono">{a.seed ?? '—'}</span>
        </div>
        <div className="mono tiny muted truncate" title={a.sha256}>
          sha256 {a.sha256.slice(0, 16)}…
        </div>
        <RevealButton a={a} />
      </div>
      <button
        type="button"
        className={`approve${approved ? ' approve-on' : ''}`}
        tabIndex={-1}
        onClick={(e) => (e.stopPropagation(), onApprove())}
        aria-pressed={approved}
        data-action="approve"
        data-needs="approvals"
        title={why('approvals') ?? 'Approve (Space)'}
        disabled={!may('approvals')}
      >
        {approved ? '✓ Approved' : 'Approve'}
      </button>
    </article>
  );
}
