/**
 * The farm's paused and stopped stretches on the Timeline: a labelled strip under the axis (who,
 * from when to when) and a hatched band over every lane, so an idle gap a pause caused is not read
 * as GPUs idling. The lane bands let clicks through to the attempts under them.
 */
import type { FarmPeriod } from '../../../shared/domain.js';
import { clock, duration } from '../../lib/format.js';

const WORD: Record<FarmPeriod['state'], string> = { paused: 'paused', stopped: 'stopped' };
const NOUN: Record<FarmPeriod['state'], string> = { paused: 'pause', stopped: 'stop' };
const MEANS: Record<FarmPeriod['state'], string> = {
  paused: 'no new prompts were sent; running ones finished',
  stopped: 'no new prompts were sent; running ones were interrupted and requeued',
};

interface Shown {
  p: FarmPeriod;
  left: number;
  width: number;
  words: string;
}

/** Each period clipped to the window, as percentages of it, with its words for hover and screen readers. */
function shown(periods: readonly FarmPeriod[], from: number, to: number, now: number): Shown[] {
  const span = to - from;
  return periods.flatMap((p) => {
    const end = p.to ?? now;
    const a = Math.max(p.from, from);
    const z = Math.min(end, to);
    if (z <= a || span <= 0) return [];
    const words = `Farm ${WORD[p.state]} by ${p.by}, ${clock(p.from)} → ${p.to === null ? 'now' : clock(p.to)} (${duration(end - p.from)}): ${MEANS[p.state]}. Idle lanes here are the ${NOUN[p.state]}, not idle GPUs.`;
    return [{ p, left: ((a - from) / span) * 100, width: Math.max(((z - a) / span) * 100, 0.2), words }];
  });
}

/** The farm's stretches and the window they are drawn in. */
interface BandProps {
  periods: readonly FarmPeriod[];
  from: number;
  to: number;
  now: number;
}

/** The strip under the axis: one labelled band per stretch. Nothing when the window has none. */
export function FarmBandStrip({ periods, from, to, now }: BandProps) {
  const bands = shown(periods, from, to, now);
  if (bands.length === 0) return null;
  return (
    <div className="band-strip" data-testid="farm-band-strip">
      <div className="lane-label muted small">Farm</div>
      <div className="band-track">
        {bands.map((b) => (
          <div
            key={b.p.from}
            className={`farm-band farm-band-${b.p.state}`}
            data-testid="farm-band"
            data-state={b.p.state}
            style={{ left: `${b.left}%`, width: `${b.width}%` }}
            title={b.words}
            role="img"
            aria-label={b.words}
          >
            {/* Its label may run past a narrow band: rightwards from it, or leftwards near the window's end. */}
            <span className={`farm-band-label${b.left > 60 ? ' farm-band-label-end' : ''}`}>
              {WORD[b.p.state]} · {b.p.by}
            </span>
          </div>
        ))}
      </div>
    </div>
  );
}

/** The same stretches over the lanes (under the label column's right edge), hatched, not clickable. */
export function FarmBandOverlay({ periods, from, to, now }: BandProps) {
  const bands = shown(periods, from, to, now);
  if (bands.length === 0) return null;
  return (
    <div className="band-overlay" aria-hidden>
      {bands.map((b) => (
        <div
          key={b.p.from}
          className={`farm-band-over farm-band-${b.p.state}`}
          data-testid="farm-band-over"
          style={{ left: `${b.left}%`, width: `${b.width}%` }}
        />
      ))}
    </div>
  );
}
