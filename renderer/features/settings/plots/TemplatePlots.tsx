/**
 * A template's plots, opened from its row in the Templates panel: VRAM per run over time and run
 * time by GPU model, from `templates.history` (the newest 500 runs of each kind, said as "newest
 * 500 of 12,345"). Each says "no measured runs yet" rather than drawing an empty plot.
 */
import { useEffect, useRef, useState } from 'react';
import type { TemplateHistoryView } from '../../../../shared/template-history.js';
import { errorMessage } from '../../../client/client.js';
import { useApp } from '../../../store/app-store.js';
import { count, gpuColours } from './plot-scale.js';
import { RunTimePlot } from './RunTimePlot.js';
import { VramPlot } from './VramPlot.js';

/** "all 23 measured runs" / "newest 500 of 12,345 measured runs". */
export function shownWords(shown: number, total: number, what: string): string {
  return shown >= total ? `all ${count(total)} ${what}` : `newest ${count(shown)} of ${count(total)} ${what}`;
}

export function TemplatePlots({ name }: { name: string }) {
  const client = useApp((s) => s.client);
  const [h, setH] = useState<TemplateHistoryView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    client.call('templates.history', { name }).then(setH, (err: unknown) => setError(errorMessage(err)));
  }, [client, name]);
  // Opened near the window's foot, the plots come into view once drawn (below the table's sticky head).
  useEffect(() => {
    if (h) box.current?.scrollIntoView({ block: 'nearest' });
  }, [h]);
  if (error) return <div className="small alert-error">{error}</div>;
  if (!h) return <div className="small muted">Loading the runs…</div>;
  const colours = gpuColours([...h.vram.gpus.map((g) => g.gpu), ...h.runTimes.gpus.map((g) => g.gpu)]);
  return (
    <div ref={box} className="template-plots" data-testid="template-plots">
      <section className="template-plot">
        {h.vramTotal > 0 && (
          <div className="plot-count small muted" data-testid="vram-count">
            v{h.version} · {shownWords(h.vramPoints.length, h.vramTotal, 'measured runs')}
          </div>
        )}
        {h.vramTotal === 0 ? (
          <div className="plot-empty" data-testid="vram-empty">
            <b>VRAM per run over time</b>
            <span className="muted">
              No measured runs yet: each LAN run of v{h.version} will add a point (declared {h.vram.declaredGb} GB until
              then).
            </span>
          </div>
        ) : (
          <VramPlot history={h} colours={colours} />
        )}
      </section>
      <section className="template-plot">
        {h.runTotal > 0 && (
          <div className="plot-count small muted" data-testid="runtime-count">
            v{h.version} · {shownWords(h.runPoints.length, h.runTotal, 'completed runs')} among the farm's latest{' '}
            {count(h.runTimes.window)} attempts
          </div>
        )}
        {h.runTotal === 0 ? (
          <div className="plot-empty" data-testid="runtime-empty">
            <b>Run time by GPU model</b>
            <span className="muted">
              No completed runs yet among the farm's latest {count(h.runTimes.window)} attempts.
            </span>
          </div>
        ) : (
          <RunTimePlot history={h} colours={colours} />
        )}
      </section>
    </div>
  );
}
