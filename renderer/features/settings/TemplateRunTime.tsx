/**
 * One template's learned run time in the Templates panel: per GPU model the median and p90 of its
 * warm runs from their real start, how many runs they are of, "not enough runs yet" below the
 * model's threshold, and the cold starts (runs that loaded their model) apart
 * (docs/vram-learning.md, docs/forecast.md).
 */
import { useEffect, useState } from 'react';
import { coldWords, runTimeWords, type TemplateRunTimeView } from '../../../shared/template-run-time.js';
import { errorMessage } from '../../client/client.js';
import { useApp } from '../../store/app-store.js';
import { shortGpu } from './TemplateVram.js';

export function TemplateRunTime({ name }: { name: string }) {
  const client = useApp((s) => s.client);
  const [view, setView] = useState<TemplateRunTimeView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client.call('templates.runTimes', { name }).then(setView, (err: unknown) => setError(errorMessage(err)));
  }, [client, name]);
  return (
    <div className="template-runtime" data-testid="template-runtime">
      {error && <div className="small alert-error">{error}</div>}
      {view && view.gpus.length === 0 && <div className="small muted">no completed run yet</div>}
      {view?.gpus.map((g) => {
        const cold = coldWords(g);
        return (
          <div key={g.gpu} className="template-vram-gpu small" data-gpu={g.gpu} title={g.gpu}>
            <span className="template-vram-name">{shortGpu(g.gpu)}</span>
            <span className={`num${g.p50Ms === null ? ' muted' : ''}`} data-testid="template-runtime-figure">
              {runTimeWords(g, view.minRuns)}
            </span>
            {cold && (
              <span className="num template-vram-use" data-testid="template-runtime-cold">
                {cold}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}
