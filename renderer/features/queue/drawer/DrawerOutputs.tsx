/** A job's output files as thumbnails; a click shows one full size (Esc or a click closes it). */
import { useState } from 'react';
import type { AssetView } from '../../../../shared/domain.js';
import { Modal } from '../../../components/Modal.js';
import { bytes } from '../../../lib/format.js';
import { useApp } from '../../../store/app-store.js';

export function DrawerOutputs({ outputs }: { outputs: readonly AssetView[] }) {
  const assetUrl = useApp((s) => s.client.assetUrl);
  const [full, setFull] = useState<AssetView | null>(null);
  if (outputs.length === 0) return <p className="muted small">No outputs yet.</p>;
  const fullUrl = full ? assetUrl(full.id) : null;
  return (
    <>
      <div className="outputs" data-testid="outputs">
        {outputs.map((a) => {
          const url = a.mediaType.startsWith('image/') ? assetUrl(a.id) : null;
          return (
            <button
              type="button"
              key={a.id}
              className="output"
              onClick={() => setFull(a)}
              title={a.path}
              data-output={a.id}
            >
              <span className="thumb">
                {url ? (
                  <img src={url} alt={a.fileName} loading="lazy" />
                ) : (
                  <span className="muted small">{a.mediaType.split('/')[1] ?? 'file'}</span>
                )}
              </span>
              <span className="tiny truncate">{a.fileName}</span>
              <span className="tiny muted">
                {a.width && a.height ? `${a.width}×${a.height} · ` : ''}
                {bytes(a.bytes)}
                {a.approved ? ' · approved' : ''}
              </span>
            </button>
          );
        })}
      </div>
      {full && (
        <Modal title={full.fileName} onClose={() => setFull(null)} wide>
          <div className="full-view" data-testid="output-full">
            {fullUrl && full.mediaType.startsWith('image/') ? (
              <img src={fullUrl} alt={full.fileName} />
            ) : fullUrl && full.mediaType.startsWith('video/') ? (
              <video src={fullUrl} controls />
            ) : (
              <p className="muted">This file cannot be shown here.</p>
            )}
            <p className="mono tiny muted break">
              {full.path} · sha256 {full.sha256}
            </p>
          </div>
        </Modal>
      )}
    </>
  );
}
