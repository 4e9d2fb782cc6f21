/**
 * The Forecast panel (docs/forecast.md): per episode with work left or a due time, a bar of done /
 * running / queued and the forecast range (p50–p90) against the due time, late ones first and
 * flagged. The engine computes the forecast as the farm runs and sends it (forecast.changed); this
 * only draws the latest. Clicking an episode shows its jobs in the table.
 */
import { burstWords, clockWords, forecastWords, type ForecastGroup } from '../../../shared/forecast.js';
import { useApp } from '../../store/app-store.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** Where the range and the due time lie on a line from now to the later of them. */
function Timeline({ g, now }: { g: ForecastGroup; now: number }) {
  if (g.p50At === null || g.p90At === null) return <div className="fc-line fc-line-none" />;
  const end = Math.max(g.p90At, g.dueAt ?? 0, now + 60_000);
  const at = (t: number) => `${Math.max(0, Math.min(100, ((t - now) / (end - now)) * 100))}%`;
  return (
    <div className="fc-line" aria-hidden="true">
      <span
        className={`fc-range${g.late ? ' fc-range-late' : ''}`}
        style={{ left: at(g.p50At), width: `calc(${at(g.p90At)} - ${at(g.p50At)} + 2px)` }}
      />
      {g.dueAt !== null && <span className="fc-due" style={{ left: at(g.dueAt) }} />}
    </div>
  );
}

function Row({ g, now }: { g: ForecastGroup; now: number }) {
  const setFilter = useApp((s) => s.setFilter);
  const total = Math.max(1, g.total);
  const pct = (x: number) => `${(x / total) * 100}%`;
  const words = forecastWords(g, now);
  return (
    <li className={`fc-row${g.late ? ' fc-late' : ''}`} data-testid="forecast-row" data-late={g.late ? '1' : '0'}>
      <button
        type="button"
        className="fc-name"
        title={`${g.project} › ${g.episode}: show its jobs`}
        onClick={() => setFilter({ project: g.project, episode: g.episode ?? undefined, sequence: undefined })}
      >
        {g.late && <span className="fc-flag">late</span>}
        {g.episode}
        <span className="fc-project">{g.project}</span>
      </button>
      <div className="fc-bars">
        <div
          className="fc-bar"
          title={`${n(g.done)} done, ${n(g.running)} running, ${n(g.queued)} waiting${g.other ? `, ${n(g.other)} failed, held or cancelled` : ''} of ${n(g.total)}`}
        >
          <span className="fc-done" style={{ width: pct(g.done) }} />
          <span className="fc-running" style={{ width: pct(g.running) }} />
          <span className="fc-queued" style={{ width: pct(g.queued) }} />
        </div>
        <Timeline g={g} now={now} />
      </div>
      <div className="fc-words" title={words}>
        <span className="fc-count">
          {n(g.done)} / {n(g.total)}
        </span>{' '}
        {words}
      </div>
    </li>
  );
}

export function ForecastPanel({ onClose }: { onClose: () => void }) {
  const forecast = useApp((s) => s.forecast);
  const now = Date.now();
  const episodes = (forecast?.groups ?? [])
    .filter((g) => g.kind === 'episode' && (g.total > g.done + g.other || g.dueAt !== null))
    .sort((a, b) => Number(b.late) - Number(a.late) || (a.key < b.key ? -1 : 1));
  const late = episodes.filter((g) => g.late).length;
  return (
    <section className="forecast" data-testid="forecast-panel" aria-label="Forecast">
      <header className="fc-head">
        <strong>Forecast</strong>
        <span className="fc-meta">
          {forecast
            ? `${forecast.slots} GPU slot${forecast.slots === 1 ? '' : 's'} · as of ${clockWords(forecast.at, now)}${late ? ` · ${late} late` : ''}`
            : 'not computed yet'}
          {forecast?.burst ? ` · ${burstWords(forecast.burst, now)}` : ''}
          {forecast?.note ? ` · ${forecast.note}` : ''}
        </span>
        <span className="spacer" />
        <span className="fc-legend" aria-hidden="true">
          <i className="fc-done" /> done <i className="fc-running" /> running <i className="fc-queued" /> waiting{' '}
          <i className="fc-range" /> p50–p90 <i className="fc-due" /> due
        </span>
        <button type="button" className="btn btn-sm tree-close" onClick={onClose} aria-label="Close the forecast">
          ×
        </button>
      </header>
      {episodes.length === 0 ? (
        <p className="fc-empty">No episode has work left or a due time.</p>
      ) : (
        <ul className="fc-list">
          {episodes.slice(0, 200).map((g) => (
            <Row key={g.key} g={g} now={now} />
          ))}
        </ul>
      )}
    </section>
  );
}
