/** A job's output files as thumbnails; a click shows one full size (Esc or a click closes it). */
import { useState } from 'react';
import type { AssetView } from '../../../../shared/domain.js';
import { Modal } from '../../../components/Modal.js';
import { bytes } from '../../../lib/format.js';
import { useAssetUrl } from '../../../store/use-asset-url.js';

function OutputThumb({ a, onOpen }: { a: AssetView; onOpen: () => void }) {
  const { url, onError } = useAssetUrl(a.mediaType.startsWith('image/') ? a.id : null);
  return (
    <button type="button" className="output" onClick={onOpen} title={a.path} data-output={a.id}>
      <span className="thumb">
        {url ? (
          <img src={url} alt={a.fileName} loading="lazy" onError={onError} />
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
}

export function DrawerOutputs({ outputs }: { outputs: readonly AssetView[] }) {
  const [full, setFull] = useState<AssetView | null>(null);
  const { url: fullUrl, onError } = useAssetUrl(full ? full.id : null);
  if (outputs.length === 0) return <p className="muted small">No outputs yet.</p>;
  return (
    <>
      <div className="outputs" data-testid="outputs">
        {outputs.map((a) => (
          <OutputThumb key={a.id} a={a} onOpen={() => setFull(a)} />
        ))}
      </div>
      {full && (
        <Modal title={full.fileName} onClose={() => setFull(null)} wide>
          <div className="full-view" data-testid="output-full">
            {fullUrl && full.mediaType.startsWith('image/') ? (
              <img src={fullUrl} alt={full.fileName} onError={onError} />
            ) : fullUrl && full.mediaType.startsWith('video/') ? (
              <video src={fullUrl} controls onError={onError} />
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
