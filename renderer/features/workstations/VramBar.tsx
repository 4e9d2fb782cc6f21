/** VRAM split: held by ComfyUI (given back on demand) / other processes (the OOM risk) / free. */
import type { VramView } from '../../../shared/domain.js';
import { gb } from '../../lib/format.js';

export function VramBar({ vram }: { vram: VramView | null }) {
  if (!vram || vram.totalBytes <= 0) return <div className="vram vram-unknown muted small">VRAM not reported yet</div>;
  const pct = (n: number) => `${Math.max(0, Math.min(100, (n / vram.totalBytes) * 100))}%`;
  return (
    <div className="vram" data-testid="vram">
      <div className="vram-bar" role="img" aria-label={`VRAM: ComfyUI ${gb(vram.comfyBytes)}, other ${gb(vram.otherBytes)}, free ${gb(vram.freeBytes)} of ${gb(vram.totalBytes)}`}>
        <span className="vram-comfy" style={{ width: pct(vram.comfyBytes) }} />
        <span className="vram-other" style={{ width: pct(vram.otherBytes) }} />
      </div>
      <div className="vram-legend small">
        <span><i className="sw sw-comfy" />ComfyUI {gb(vram.comfyBytes)}</span>
        <span><i className="sw sw-other" />Other {gb(vram.otherBytes)}</span>
        <span><i className="sw sw-free" />Free {gb(vram.freeBytes)}</span>
        <span className="muted">of {gb(vram.totalBytes)}</span>
      </div>
    </div>
  );
}
