/**
 * The frame both Templates-view plots share: a caption, an SVG drawn at its box's measured width
 * (so its text is never scaled), titled and described for assistive technology by the caption and
 * the summary, then the legend and the same summary in words under it.
 */
import { type ReactNode, useId, useRef } from 'react';
import { useWidth } from '../../../lib/use-width.js';

export function PlotFigure(p: {
  /** Names the test ids: `${kind}-plot`, `${kind}-svg`, `${kind}-summary`. */
  kind: 'vram' | 'runtime';
  caption: string;
  /** The SVG's own title (the caption with what it is of). */
  title: string;
  summary: string;
  height: number;
  legend: ReactNode;
  /** The SVG's marks at the measured width. */
  children: (width: number) => ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = Math.max(useWidth(box, 560), 320);
  const ids = useId();
  return (
    <figure className="plot" data-testid={`${p.kind}-plot`}>
      <figcaption className="plot-title" id={`${ids}-t`}>
        {p.caption}
      </figcaption>
      <div ref={box} className="plot-box">
        <svg
          width={width}
          height={p.height}
          viewBox={`0 0 ${width} ${p.height}`}
          role="img"
          aria-labelledby={`${ids}-t ${ids}-d`}
          data-testid={`${p.kind}-svg`}
        >
          <title>{p.title}</title>
          <desc id={`${ids}-d`}>{p.summary}</desc>
          {p.children(width)}
        </svg>
      </div>
      <div className="plot-legend small">{p.legend}</div>
      <p className="plot-summary small muted" data-testid={`${p.kind}-summary`}>
        {p.summary}
      </p>
    </figure>
  );
}
