/** The add form's first question: a ComfyUI server on the network, or a RunPod serverless endpoint. */
import type { InstanceKind } from '../../../shared/domain.js';

const KINDS: { kind: InstanceKind; label: string }[] = [
  { kind: 'comfyui', label: 'ComfyUI server' },
  { kind: 'runpod', label: 'RunPod endpoint (cloud)' },
];

export function KindChoice({ kind, onKind }: { kind: InstanceKind; onKind: (k: InstanceKind) => void }) {
  return (
    <div className="field">
      <span className="field-label">Kind</span>
      <div className="chips" role="radiogroup" aria-label="Kind of workstation">
        {KINDS.map((k) => (
          <button
            key={k.kind} type="button" role="radio" aria-checked={kind === k.kind} data-kind={k.kind}
            className={`chip${kind === k.kind ? ' chip-on' : ''}`} style={{ '--c': 'var(--accent)' } as React.CSSProperties} onClick={() => onKind(k.kind)}
          >
            {k.label}
          </button>
        ))}
      </div>
    </div>
  );
}
