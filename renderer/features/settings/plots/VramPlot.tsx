/**
 * VRAM per run over time for one template version: a point per measured attempt (what learning
 * counts, GB) against when it ended, coloured by GPU model; an out-of-memory attempt as a red-edged
 * triangle at what it needed more than; the declared number and, per GPU model, the number
 * admission uses (learned p95 + margin, or raised by OOMs) as horizontal lines labelled at the
 * right. The text under it says the same in words (docs/vram-learning.md#plots).
 */
import type { TemplateHistoryView } from '../../../../shared/template-history.js';
import { dateTime } from '../../../lib/format.js';
import { PlotFigure } from './PlotFigure.js';
import { shortGpu } from '../TemplateVram.js';
import { count, gpuLabel, linear, niceTicks, timeTicks } from './plot-scale.js';

const H = 250;
const M = { top: 12, right: 134, bottom: 40, left: 46 };

interface Line {
  key: string;
  kind: 'declared' | 'uses';
  gb: number;
  colour: string;
  words: string;
  title: string;
}

/** The horizontal lines: declared, then each GPU model's number where it differs from declared. */
function linesOf(h: TemplateHistoryView, colours: Map<string, string>): Line[] {
  const v = h.vram;
  const out: Line[] = [
    {
      key: 'declared',
      kind: 'declared',
      gb: v.declaredGb,
      colour: 'var(--muted)',
      words: `declared ${v.declaredGb} GB`,
      title: `Declared in the template: ${v.declaredGb} GB`,
    },
  ];
  for (const g of v.gpus) {
    if (g.use.source === 'declared' && g.use.gb === v.declaredGb) continue;
    const why =
      g.use.source === 'learned'
        ? `learned: p95 ${g.p95Gb} GB of ${count(g.samples)} runs + ${v.marginPct} %`
        : g.use.source === 'override'
          ? "a workstation's override"
          : `declared, raised by ${g.use.ooms} out-of-memory failure${g.use.ooms === 1 ? '' : 's'}`;
    out.push({
      key: g.gpu,
      kind: 'uses',
      gb: g.use.gb,
      colour: colours.get(g.gpu) ?? 'var(--text)',
      words: `${gpuLabel(shortGpu(g.gpu), 11)} ${g.use.gb} GB`,
      title: `${g.gpu}: admission uses ${g.use.gb} GB (${why})`,
    });
  }
  return out;
}

/** Label heights pushed apart so two close lines' words never overlap. */
function spread(ys: number[], gap: number, top: number, bottom: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  let last = Number.NEGATIVE_INFINITY;
  for (const o of order) {
    o.y = Math.max(o.y, last + gap, top);
    last = o.y;
  }
  const over = last - bottom;
  if (over > 0) for (const o of order) o.y -= over;
  const out = new Array<number>(ys.length);
  for (const o of order) out[o.i] = o.y;
  return out;
}

export function vramSummary(h: TemplateHistoryView): string {
  const v = h.vram;
  const parts = v.gpus.map((g) => {
    const runs = `${count(g.samples)} good run${g.samples === 1 ? '' : 's'}`;
    const p95 = g.p95Gb === null ? '' : `, p95 ${g.p95Gb} GB`;
    const oom = g.ooms ? `, ${count(g.ooms)} out of memory (needed more than ${g.oomAboveGb} GB)` : '';
    return `${shortGpu(g.gpu)}: ${runs}${p95}${oom}; admission uses ${g.use.gb} GB (${g.use.source})`;
  });
  return `VRAM of ${name(h)}: declared ${v.declaredGb} GB. ${parts.join('. ')}.`;
}

const name = (h: TemplateHistoryView) => `${h.name} v${h.version}`;

export function VramPlot({ history: h, colours }: { history: TemplateHistoryView; colours: Map<string, string> }) {
  return (
    <PlotFigure
      kind="vram"
      caption="VRAM per run over time"
      title={`VRAM per run over time, ${name(h)}`}
      summary={vramSummary(h)}
      height={H}
      legend={
        <>
          <span>
            <svg width="12" height="12" aria-hidden="true">
              <circle cx="6" cy="6" r="3" fill="var(--text-2)" />
            </svg>{' '}
            a measured run
          </span>
          <span>
            <svg width="12" height="12" aria-hidden="true">
              <path className="plot-oom" d="M6 1L11 10L1 10Z" fill="var(--text-2)" />
            </svg>{' '}
            out of memory: needed more than this
          </span>
          <span>
            <span className="plot-swatch-line plot-line-declared" /> declared
          </span>
          <span>
            <span className="plot-swatch-line plot-line-uses" /> admission uses (learned p95 + {h.vram.marginPct} %)
          </span>
        </>
      }
    >
      {(width) => <VramMarks history={h} colours={colours} width={width} />}
    </PlotFigure>
  );
}

/** The marks of the plot at the measured width. */
function VramMarks({
  history: h,
  colours,
  width,
}: {
  history: TemplateHistoryView;
  colours: Map<string, string>;
  width: number;
}) {
  const pts = h.vramPoints;
  const lines = linesOf(h, colours);
  const x0 = M.left;
  const x1 = width - M.right;
  const y0 = H - M.bottom;
  const y1 = M.top;
  const from = pts[0]?.at ?? 0;
  const to = pts[pts.length - 1]?.at ?? 0;
  const pad = to - from < 60_000 ? 30 * 60_000 : (to - from) * 0.03;
  const x = linear(from - pad, to + pad, x0, x1);
  const gbTicks = niceTicks(Math.max(...pts.map((p) => p.needGb), ...lines.map((l) => l.gb)) * 1.08, 5);
  const top = gbTicks[gbTicks.length - 1] as number;
  const y = linear(0, top, y0, y1);
  const labelYs = spread(
    lines.map((l) => y(l.gb)),
    12,
    y1 + 4,
    y0,
  );
  return (
    <>
      {gbTicks.map((g) => (
        <g key={g}>
          <line className="plot-grid" x1={x0} x2={x1} y1={y(g)} y2={y(g)} />
          <text className="plot-tick" x={x0 - 6} y={y(g) + 4} textAnchor="end">
            {g}
          </text>
        </g>
      ))}
      {timeTicks(from - pad, to + pad, Math.max(2, Math.floor((x1 - x0) / 95))).map((t) => (
        <text key={t.at} className="plot-tick" x={x(t.at)} y={y0 + 15} textAnchor="middle">
          {t.words}
        </text>
      ))}
      <line className="plot-axis" x1={x0} x2={x1} y1={y0} y2={y0} />
      <text className="plot-axis-label" x={(x0 + x1) / 2} y={H - 6} textAnchor="middle">
        attempt ended (local time)
      </text>
      <text className="plot-axis-label" transform={`translate(12 ${(y0 + y1) / 2}) rotate(-90)`} textAnchor="middle">
        VRAM need (GB)
      </text>
      {pts.map((p, i) => {
        const cx = x(p.at);
        const cy = y(p.needGb);
        const colour = colours.get(p.gpu) ?? 'var(--text)';
        const tip =
          p.outcome === 'oom'
            ? `${shortGpu(p.gpu)}, ${dateTime(p.at)}: out of memory — needed more than ${p.needGb} GB`
            : `${shortGpu(p.gpu)}, ${dateTime(p.at)}: needed ${p.needGb} GB (added ${p.addedGb} GB over idle${p.warm ? ', model already loaded' : ''})`;
        const common = {
          'data-testid': 'vram-point',
          'data-gpu': p.gpu,
          'data-outcome': p.outcome,
          'data-gb': p.needGb,
        };
        return p.outcome === 'oom' ? (
          <path
            key={i}
            {...common}
            className="plot-oom"
            d={`M${cx} ${cy - 6}L${cx + 5.5} ${cy + 4}L${cx - 5.5} ${cy + 4}Z`}
            fill={colour}
          >
            <title>{tip}</title>
          </path>
        ) : (
          <circle key={i} {...common} className="plot-point" cx={cx} cy={cy} r={3} fill={colour}>
            <title>{tip}</title>
          </circle>
        );
      })}
      {lines.map((l, i) => (
        <g
          key={l.key}
          data-testid="vram-line"
          data-kind={l.kind}
          data-gpu={l.kind === 'uses' ? l.key : undefined}
          data-gb={l.gb}
        >
          <title>{l.title}</title>
          <line
            className={`plot-line plot-line-${l.kind}`}
            x1={x0}
            x2={x1}
            y1={y(l.gb)}
            y2={y(l.gb)}
            stroke={l.colour}
          />
          <text className="plot-line-label" x={x1 + 6} y={(labelYs[i] as number) + 4} fill={l.colour}>
            {l.words}
          </text>
        </g>
      ))}
    </>
  );
}
