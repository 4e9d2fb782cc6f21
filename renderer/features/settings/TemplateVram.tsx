/**
 * One template's VRAM in the Templates panel: the declared number beside what the farm learned per
 * GPU model (with the run counts behind it), which one admission uses, and the operator's pin
 * (docs/vram-learning.md). The pin needs the `templates` class, gated as the panel's other actions.
 */
import { useCallback, useEffect, useState } from 'react';
import { VRAM_PINS, type TemplateVramView, type VramPin } from '../../../shared/vram-need.js';
import { errorMessage } from '../../client/client.js';
import { useApp } from '../../store/app-store.js';
import { useMay } from '../../store/use-may.js';

const PIN_WORDS: Record<VramPin, string> = { auto: 'learn', declared: 'pin declared', learned: 'pin learned' };

/** "NVIDIA GeForce RTX 4090" → "RTX 4090": the studio-sized name; the full one is the title. */
export function shortGpu(name: string): string {
  return name.replace(/^NVIDIA\s+(GeForce\s+)?/i, '');
}

export function TemplateVram({ name, declaredGb }: { name: string; declaredGb: number }) {
  const client = useApp((s) => s.client);
  const { why } = useMay();
  const [view, setView] = useState<TemplateVramView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    client.call('templates.vram', { name }).then(setView, (err: unknown) => setError(errorMessage(err)));
  }, [client, name]);
  useEffect(load, [load]);
  const pin = (p: VramPin) => {
    setError(null);
    client.call('templates.pinVram', { name, pin: p }).then(setView, (err: unknown) => setError(errorMessage(err)));
  };
  return (
    <div className="template-vram" data-testid="template-vram">
      <div className="template-vram-head">
        <span className="num">{declaredGb} GB declared</span>
        <select
          className="input input-sm"
          value={view?.pin ?? 'auto'}
          onChange={(e) => pin(e.target.value as VramPin)}
          disabled={view === null || why('templates') !== undefined}
          title={why('templates') ?? 'Which VRAM number admission uses for this template'}
          aria-label={`VRAM pin of ${name}`}
          data-testid="template-vram-pin"
          data-needs="templates"
        >
          {VRAM_PINS.map((p) => (
            <option key={p} value={p}>
              {PIN_WORDS[p]}
            </option>
          ))}
        </select>
      </div>
      {error && <div className="small alert-error">{error}</div>}
      {view && view.gpus.length === 0 && <div className="small muted">no run measured yet</div>}
      {view?.gpus.map((g) => (
        <div key={g.gpu} className="template-vram-gpu small" data-gpu={g.gpu} title={g.gpu}>
          <span className="template-vram-name">{shortGpu(g.gpu)}</span>
          <span className="num">
            {g.p95Gb === null ? '—' : `${g.p95Gb} GB`} learned · {g.samples} run{g.samples === 1 ? '' : 's'}
            {g.ooms > 0 && ` · ${g.ooms} OOM > ${g.oomAboveGb} GB`}
          </span>
          <span className={`num template-vram-use use-${g.use.source}`} data-testid="template-vram-use">
            uses {g.use.gb} GB ({g.use.source})
          </span>
        </div>
      ))}
    </div>
  );
}
