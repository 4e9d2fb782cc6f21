/**
 * Per-GPU Gantt: one lane per workstation, one bar per attempt coloured by outcome, idle time left
 * empty so gaps show. Range presets (15 min … 24 h), or zoom with the wheel around the pointer;
 * the window follows "now" until the operator zooms into the past. A bar opens its job's drawer
 * (click, or Enter on the focused bar: the queue's `#/queue/job/<id>`); the farm's paused and stopped
 * stretches are drawn across the lanes (FarmBands.tsx).
 */
import { useMemo, useRef, useState, type KeyboardEvent, type WheelEvent } from 'react';
import type { TimelineBar, TimelineView as Timeline } from '../../../shared/domain.js';
import { Empty } from '../../components/Empty.js';
import { MiddleCut } from '../../components/MiddleCut.js';
import { clock, duration } from '../../lib/format.js';
import { openJob } from '../../lib/route.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useNow } from '../../lib/use-now.js';
import { useApp } from '../../store/app-store.js';
import { FarmBandOverlay, FarmBandStrip } from './FarmBands.js';
import { busyShare } from './lane-busy.js';
import { tickLabel, ticks } from './time-axis.js';

const PRESETS: [string, number][] = [
  ['5 min', 5 * 60e3],
  ['15 min', 15 * 60e3],
  ['1 h', 3_600e3],
  ['6 h', 6 * 3_600e3],
  ['24 h', 24 * 3_600e3],
];
const MIN_SPAN = 20e3;
const MAX_SPAN = 7 * 24 * 3_600e3;
const OUTCOMES = ['completed', 'failed', 'retry', 'timeout', 'running', 'cancelled', 'lost', 'requeued'] as const;

/**
 * A bar is a link to its job's drawer, opened by a click or by Enter (or Space) on it. The waiting
 * band under a bar that started opens the same job but is no second tab stop (`tabbable` false).
 */
function opensJob(jobId: string, label: string, tabbable = true) {
  return {
    role: 'link',
    tabIndex: tabbable ? 0 : -1,
    'data-job-id': jobId,
    'aria-label': `${label}: open the job`,
    onClick: () => openJob(jobId),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      openJob(jobId);
    },
  };
}

/**
 * A label centred on its tick would be cut by the track's edge near either end: there it stands
 * beside its tick instead, inside the track (within 4 % of an edge is closer than half a label).
 */
function tickEdge(atPct: number): string {
  if (atPct > 96) return ' tick-end';
  if (atPct < 4) return ' tick-start';
  return '';
}

interface Range {
  span: number;
  /** null = follow now. */
  end: number | null;
}

function Lane({
  name,
  gpu,
  bars,
  from,
  to,
  now,
}: {
  name: string;
  gpu: string | null;
  bars: TimelineBar[];
  from: number;
  to: number;
  now: number;
}) {
  const span = to - from;
  const busy = busyShare(bars, from, to, now);
  return (
    <div className="lane" data-lane={name}>
      <div className="lane-label">
        <div className="lane-name" title={name}>
          <MiddleCut text={name} at="-_. " />
        </div>
        <div
          className="muted small"
          data-testid="lane-busy"
          title="Share of the shown time a prompt ran on this GPU (time a prompt only waited there, sent ahead, is not counted)"
        >
          {gpu ?? 'GPU unknown'} · busy {Math.round(busy * 100)}%
        </div>
      </div>
      <div className="lane-track">
        {bars.map((b) => {
          const end = b.end ?? now;
          const outcome = b.outcome ?? 'running';
          // Sent ahead (prefetch), a prompt only waits on the workstation until it starts: that time is
          // drawn apart, a thin hatched band under the lane's run bars, and the run bar begins at its start.
          const runFrom = b.startedAt ?? end;
          const waited = Math.max(0, Math.min(runFrom, end) - b.start);
          const pct = (ms: number) => (ms / span) * 100;
          const waitWords =
            b.startedAt === null
              ? `${b.end ? 'never started there' : 'next: waits there behind the running prompt'} (sent ${clock(b.start)}, ${duration(waited)})`
              : `waited there ${duration(waited)} (sent ${clock(b.start)}), then ran`;
          const band =
            waited > 0 || b.startedAt === null ? (
              <div
                key={`${b.attemptId}-wait`}
                className={`tbar-wait${b.startedAt === null ? ` tbar tbar-unstarted outcome-${outcome}` : ''}`}
                data-testid="tbar-wait"
                {...(b.startedAt === null ? { 'data-outcome': outcome, 'data-started': 'no' } : {})}
                style={{ left: `${pct(b.start - from)}%`, width: `${Math.max(pct(waited), 0.15)}%` }}
                title={`${b.label}\n${b.startedAt === null ? outcome : 'sent ahead'} · ${waitWords}\nClick to open the job`}
                {...opensJob(b.jobId, b.label, b.startedAt === null)}
              />
            ) : null;
          const startedAt = b.startedAt;
          if (startedAt === null) return band;
          const runSpan = Math.max(1, end - startedAt);
          return [
            band,
            <div
              key={b.attemptId}
              className={`tbar outcome-${outcome}`}
              style={{ left: `${pct(startedAt - from)}%`, width: `${Math.max(pct(end - startedAt), 0.15)}%` }}
              title={`${b.label}\n${outcome} · ${waited >= 1_000 ? `waited there ${duration(waited)}, ` : ''}ran ${clock(startedAt)} → ${b.end ? clock(b.end) : 'now'} (${duration(end - startedAt)})\nClick to open the job`}
              data-outcome={outcome}
              data-started="yes"
              {...opensJob(b.jobId, b.label)}
            >
              <span className="tbar-label">{b.label}</span>
              {b.contactGaps.map((g) => {
                // Where the workstation did not answer, hatched over the bar (positions relative to it).
                const gapEnd = g.to ?? now;
                return (
                  <span
                    key={g.from}
                    className="tbar-gap"
                    data-testid="contact-gap"
                    style={{
                      left: `${((g.from - startedAt) / runSpan) * 100}%`,
                      width: `${Math.max(((gapEnd - g.from) / runSpan) * 100, 0.5)}%`,
                    }}
                    title={`no answer from the workstation ${clock(g.from)} → ${g.to ? clock(g.to) : 'now'} (${duration(gapEnd - g.from)})`}
                  />
                );
              })}
            </div>,
          ];
        })}
      </div>
    </div>
  );
}

export function TimelineView() {
  const client = useApp((s) => s.client);
  const [range, setRange] = useState<Range>({ span: 15 * 60e3, end: null });
  const now = useNow();
  const track = useRef<HTMLDivElement>(null);
  const q = useLiveQuery<Timeline>(
    () => {
      const to = range.end ?? Date.now() + 60e3;
      return client.call('timeline.get', { from: Math.floor(to - range.span - 60e3), to: Math.ceil(to) });
    },
    [range.span, range.end],
    1_000,
  );

  const to = range.end ?? now;
  const from = to - range.span;
  const byLane = useMemo(() => {
    const m = new Map<string, TimelineBar[]>();
    for (const b of q.data?.bars ?? []) {
      const k = b.instanceId ?? '';
      m.set(k, [...(m.get(k) ?? []), b]);
    }
    return m;
  }, [q.data]);

  const onWheel = (e: WheelEvent) => {
    const rect = track.current?.getBoundingClientRect();
    if (!rect || rect.width <= 0) return;
    const x = Math.min(1, Math.max(0, (e.clientX - rect.left - 200) / (rect.width - 200)));
    const at = from + x * range.span;
    const span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, range.span * (e.deltaY > 0 ? 1.25 : 0.8)));
    const end = at + (1 - x) * span;
    setRange({ span, end: end >= Date.now() ? null : end });
  };

  // Zoom so the loaded attempts fill the lanes (a fresh farm's few seconds would be a sliver in 15 min).
  const fit = () => {
    const starts = (q.data?.bars ?? []).map((b) => b.start);
    if (!starts.length) return;
    const first = Math.min(...starts);
    setRange({ span: Math.min(MAX_SPAN, Math.max(MIN_SPAN, (Date.now() - first) * 1.08)), end: null });
  };

  const lanes = q.data?.lanes ?? [];
  const periods = q.data?.farmPeriods ?? [];
  return (
    <section className="view view-timeline">
      <div className="view-head">
        <div>
          <h1>Timeline</h1>
          <div className="muted">
            {clock(from)} → {range.end === null ? 'now' : clock(to)} · {q.data?.bars.length ?? 0} attempts · scroll to
            zoom
          </div>
        </div>
        <div className="seg" role="group" aria-label="Time range">
          <button type="button" className="seg-btn" onClick={fit} data-range="fit" title="Fit the attempts shown">
            Fit
          </button>
          {PRESETS.map(([label, span]) => (
            <button
              type="button"
              key={label}
              className={`seg-btn${range.end === null && range.span === span ? ' seg-on' : ''}`}
              onClick={() => setRange({ span, end: null })}
              data-range={label}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <div className="legend small">
        {OUTCOMES.map((o) => (
          <span key={o}>
            <i className={`sw outcome-${o}`} />
            {o}
          </span>
        ))}
        <span title="Sent ahead to its workstation (prefetch), waiting there behind the running prompt: not busy time">
          <i className="sw sw-wait" />
          waiting there
        </span>
        <span title="The farm was paused: no new prompts were sent, so the lanes are idle because of the pause, not the GPUs">
          <i className="sw farm-band-paused" />
          farm paused
        </span>
        <span title="The farm was stopped: running prompts were interrupted and no new ones sent">
          <i className="sw farm-band-stopped" />
          farm stopped
        </span>
        <span className="muted">click a bar to open its job</span>
      </div>
      {q.error && (
        <Empty title="Could not load the timeline" tone="error">
          {q.error}
        </Empty>
      )}
      <div className="gantt" ref={track} onWheel={onWheel} data-testid="gantt">
        <div className="axis">
          <div className="lane-label" />
          <div className="axis-track">
            {ticks(from, to).map((t) => {
              const at = ((t - from) / range.span) * 100;
              return (
                <span key={t} className={`tick${tickEdge(at)}`} style={{ left: `${at}%` }}>
                  {tickLabel(t, range.span)}
                </span>
              );
            })}
            {range.end === null && <span className="now-line" style={{ left: '100%' }} />}
          </div>
        </div>
        {lanes.length > 0 && <FarmBandStrip periods={periods} from={from} to={to} now={now} />}
        <div className="lanes">
          <FarmBandOverlay periods={periods} from={from} to={to} now={now} />
          {lanes.map((l) => (
            <Lane
              key={l.instanceId}
              name={l.name}
              gpu={l.gpuName}
              bars={byLane.get(l.instanceId) ?? []}
              from={from}
              to={to}
              now={now}
            />
          ))}
        </div>
        {q.data && lanes.length === 0 && (
          <Empty title="No workstations">Lanes appear once workstations are registered.</Empty>
        )}
      </div>
    </section>
  );
}
