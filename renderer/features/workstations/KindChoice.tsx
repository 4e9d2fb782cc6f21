/** The add form's first question: a ComfyUI server on the network, several of them (a pasted list), or a RunPod serverless endpoint. */
export type WorkstationKind = 'comfyui' | 'list' | 'runpod';

const KINDS: { kind: WorkstationKind; label: string }[] = [
  { kind: 'comfyui', label: 'ComfyUI server' },
  { kind: 'list', label: 'Several (a list)' },
  { kind: 'runpod', label: 'RunPod endpoint (cloud)' },
];

export function KindChoice({ kind, onKind }: { kind: WorkstationKind; onKind: (k: WorkstationKind) => void }) {
  return (
    <div className="field">
      <span className="field-label">Kind</span>
      <div className="chips" role="radiogroup" aria-label="Kind of workstation">
        {KINDS.map((k) => (
          <button
            key={k.kind}
            type="button"
            role="radio"
            aria-checked={kind === k.kind}
            data-kind={k.kind}
            className={`chip${kind === k.kind ? ' chip-on' : ''}`}
            style={{ '--c': 'var(--accent)' } as React.CSSProperties}
            onClick={() => onKind(k.kind)}
          >
            {k.label}
          </button>
        ))}
      </div>
    </div>
  );
}
