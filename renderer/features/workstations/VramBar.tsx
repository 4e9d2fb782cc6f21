/** VRAM split: held by ComfyUI (given back on demand) / other processes (the OOM risk) / free. */
import type { VramView } from '../../../shared/domain.js';
import { clock, gb } from '../../lib/format.js';

/** `unknownSince`: it stopped answering after that answer — the last figures are no longer shown as if current. */
export function VramBar({ vram, unknownSince = null }: { vram: VramView | null; unknownSince?: number | null }) {
  if (unknownSince !== null)
    return (
      <div className="vram vram-unknown muted small" data-testid="vram-unknown">
        VRAM unknown since {clock(unknownSince)}
      </div>
    );
  if (!vram || vram.totalBytes <= 0) return <div className="vram vram-unknown muted small">VRAM not reported yet</div>;
  const pct = (n: number) => `${Math.max(0, Math.min(100, (n / vram.totalBytes) * 100))}%`;
  return (
    <div className="vram" data-testid="vram">
      <div
        className="vram-bar"
        role="img"
        aria-label={`VRAM: ComfyUI ${gb(vram.comfyBytes)}, other ${gb(vram.otherBytes)}, free ${gb(vram.freeBytes)} of ${gb(vram.totalBytes)}`}
      >
        <span className="vram-comfy" style={{ width: pct(vram.comfyBytes) }} />
        <span className="vram-other" style={{ width: pct(vram.otherBytes) }} />
      </div>
      <div className="vram-legend small">
        <span>
          <i className="sw sw-comfy" />
          ComfyUI {gb(vram.comfyBytes)}
        </span>
        <span>
          <i className="sw sw-other" />
          Other {gb(vram.otherBytes)}
        </span>
        <span>
          <i className="sw sw-free" />
          Free {gb(vram.freeBytes)}
        </span>
        <span className="muted">of {gb(vram.totalBytes)}</span>
      </div>
    </div>
  );
}
