/**
 * Run time by GPU model for one template version: per GPU model a strip of its runs' lengths (from
 * the prompt's real start), the warm runs in the upper lane with their median (solid) and p90
 * (dashed) — the figures of the run-time model, of every run in its window — and the cold starts
 * (runs that loaded their checkpoint) apart in the lower lane with their median. Points are the newest
 * runs; the marks are of every run in the model's window. The text under it says the same in words.
 */
import type { TemplateHistoryView, TemplateRunPoint } from '../../../../shared/template-history.js';
import { runLength, type TemplateGpuRunTime } from '../../../../shared/template-run-time.js';
import { dateTime } from '../../../lib/format.js';
import { PlotFigure } from './PlotFigure.js';
import { shortGpu } from '../TemplateVram.js';
import { count, durationTick, durationTicks, gpuLabel, jitter, linear } from './plot-scale.js';

const STRIP = 48;
const WARM = 26;
const M = { top: 8, right: 16, bottom: 38, left: 140 };

/** A strip per GPU model between the margins. */
const heightOf = (h: TemplateHistoryView) => M.top + h.runTimes.gpus.length * STRIP + M.bottom;

export function runTimeSummary(h: TemplateHistoryView): string {
  const rt = h.runTimes;
  const parts = rt.gpus.map((g) => {
    const warm =
      g.p50Ms === null || g.p90Ms === null
        ? `${count(g.runs)} warm run${g.runs === 1 ? '' : 's'}, not enough for a median (needs ${rt.minRuns})`
        : `median ${runLength(g.p50Ms)}, p90 ${runLength(g.p90Ms)} of ${count(g.runs)} warm runs`;
    const cold =
      g.coldRuns && g.coldMs !== null
        ? `; ${count(g.coldRuns)} cold start${g.coldRuns === 1 ? '' : 's'}, median ${runLength(g.coldMs)}`
        : '';
    return `${shortGpu(g.gpu)}: ${warm}${cold}`;
  });
  return `Run time of ${h.name} v${h.version} by GPU model: ${parts.join('. ')}.`;
}

export function RunTimePlot({ history: h, colours }: { history: TemplateHistoryView; colours: Map<string, string> }) {
  return (
    <PlotFigure
      kind="runtime"
      caption="Run time by GPU model"
      title={`Run time by GPU model, ${h.name} v${h.version}`}
      summary={runTimeSummary(h)}
      height={heightOf(h)}
      legend={
        <>
          <span>
            <svg width="12" height="12" aria-hidden="true">
              <circle cx="6" cy="6" r="2.5" fill="var(--text-2)" />
            </svg>{' '}
            a warm run
          </span>
          <span>
            <svg width="12" height="12" aria-hidden="true">
              <path className="plot-cold" d="M6 2L10 6L6 10L2 6Z" stroke="var(--text-2)" />
            </svg>{' '}
            cold start (loaded its model), lower lane
          </span>
          <span>
            <span className="plot-swatch-mark plot-marker-median" /> median
          </span>
          <span>
            <span className="plot-swatch-mark plot-marker-p90" /> p90 (warm runs)
          </span>
          <span>
            <span className="plot-swatch-mark plot-marker-cold" /> cold start median
          </span>
        </>
      }
    >
      {(width) => <RunTimeMarks history={h} colours={colours} width={width} />}
    </PlotFigure>
  );
}

/** The marks of the plot at the measured width. */
function RunTimeMarks({
  history: h,
  colours,
  width,
}: {
  history: TemplateHistoryView;
  colours: Map<string, string>;
  width: number;
}) {
  const gpus = h.runTimes.gpus;
  const height = heightOf(h);
  const x0 = M.left;
  const x1 = width - M.right;
  const y0 = height - M.bottom;
  const maxMs = Math.max(
    ...h.runPoints.map((p) => p.ms),
    ...gpus.map((g) => g.p90Ms ?? 0),
    ...gpus.map((g) => g.coldMs ?? 0),
  );
  const ticks = durationTicks(maxMs * 1.04, Math.max(2, Math.floor((x1 - x0) / 80)));
  const x = linear(0, ticks[ticks.length - 1] as number, x0, x1);
  const byGpu = new Map<string, TemplateRunPoint[]>();
  for (const p of h.runPoints) byGpu.set(p.gpu, [...(byGpu.get(p.gpu) ?? []), p]);
  const strip = (g: TemplateGpuRunTime, row: number) => {
    const top = M.top + row * STRIP;
    const colour = colours.get(g.gpu) ?? 'var(--text)';
    const mark = (kind: 'median' | 'p90', ms: number | null) =>
      ms === null ? null : (
        <line
          data-testid="run-marker"
          data-kind={kind}
          data-ms={ms}
          className={`plot-marker plot-marker-${kind}`}
          x1={x(ms)}
          x2={x(ms)}
          y1={top + 1}
          y2={top + WARM + 1}
        >
          <title>{`${shortGpu(g.gpu)}: ${kind} ${runLength(ms)} of ${count(g.runs)} warm runs`}</title>
        </line>
      );
    return (
      <g key={g.gpu} data-testid="run-strip" data-gpu={g.gpu}>
        <title>{`${g.gpu}: ${count(g.runs)} warm, ${count(g.coldRuns)} cold`}</title>
        <rect className="plot-lane" x={x0} y={top + 2} width={x1 - x0} height={WARM - 2} />
        <rect
          className="plot-lane plot-lane-cold"
          x={x0}
          y={top + WARM + 3}
          width={x1 - x0}
          height={STRIP - WARM - 8}
        />
        <text className="plot-gpu" x={x0 - 8} y={top + 14} textAnchor="end" fill={colour}>
          {gpuLabel(shortGpu(g.gpu), 15)}
        </text>
        <text className="plot-tick" x={x0 - 8} y={top + 27} textAnchor="end">
          {count(g.runs)} warm
        </text>
        <text className="plot-tick" x={x0 - 8} y={top + 40} textAnchor="end">
          {count(g.coldRuns)} cold
        </text>
        {(byGpu.get(g.gpu) ?? []).map((p, i) => {
          const cx = x(p.ms);
          const tip = `${shortGpu(p.gpu)}, ${dateTime(p.at)}: ${runLength(p.ms)}${p.cold ? ' (cold start: loaded its model)' : ''}`;
          const common = { 'data-testid': 'run-point', 'data-gpu': p.gpu, 'data-ms': p.ms, 'data-cold': p.cold };
          if (p.cold) {
            const cy = top + WARM + 3 + (STRIP - WARM - 8) / 2;
            return (
              <path
                key={i}
                {...common}
                className="plot-cold"
                d={`M${cx} ${cy - 4}L${cx + 4} ${cy}L${cx} ${cy + 4}L${cx - 4} ${cy}Z`}
                stroke={colour}
              >
                <title>{tip}</title>
              </path>
            );
          }
          return (
            <circle
              key={i}
              {...common}
              className="plot-point"
              cx={cx}
              cy={top + 6 + jitter(i) * (WARM - 10)}
              r={2.5}
              fill={colour}
            >
              <title>{tip}</title>
            </circle>
          );
        })}
        {mark('median', g.p50Ms)}
        {mark('p90', g.p90Ms)}
        {g.coldMs !== null && g.coldRuns > 0 && (
          <line
            data-testid="run-marker"
            data-kind="cold"
            data-ms={g.coldMs}
            className="plot-marker plot-marker-cold"
            x1={x(g.coldMs)}
            x2={x(g.coldMs)}
            y1={top + WARM + 3}
            y2={top + STRIP - 5}
          >
            <title>{`${shortGpu(g.gpu)}: cold start median ${runLength(g.coldMs)} of ${count(g.coldRuns)} run${g.coldRuns === 1 ? '' : 's'}`}</title>
          </line>
        )}
      </g>
    );
  };
  return (
    <>
      {ticks.map((t) => (
        <g key={t}>
          <line className="plot-grid" x1={x(t)} x2={x(t)} y1={M.top} y2={y0} />
          <text className="plot-tick" x={x(t)} y={y0 + 15} textAnchor="middle">
            {durationTick(t)}
          </text>
        </g>
      ))}
      <line className="plot-axis" x1={x0} x2={x1} y1={y0} y2={y0} />
      <text className="plot-axis-label" x={(x0 + x1) / 2} y={height - 6} textAnchor="middle">
        run time, from the prompt's real start on the GPU
      </text>
      {gpus.map(strip)}
    </>
  );
}
