/**
 * The queue grouped by project → episode → sequence, with the number of jobs in each group that the
 * rest of the filter shows (its states, search, priority), in words on hover. Shots are not listed:
 * a studio's episode has hundreds of them, and the table below is the list of shots; a sequence is
 * the finest group. Groups load as they are opened (`jobs.facets`, one level at a time: 100k jobs are
 * never listed here), and stay live. Clicking a group shows just its jobs. The panel closes with its
 * × (or the queue's Groups button); where the window is narrow it lies over the table's left side
 * instead of taking the width the table's columns need (styles.css, `.tree`), and picking a sequence
 * there closes it, so the rows picked are not under it.
 */
import { useState } from 'react';
import type { JobFilter } from '../../../shared/api.js';
import type { FacetField, FacetValue } from '../../../shared/domain.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { cleanFilter } from '../../store/queue-slice.js';
import { useApp } from '../../store/app-store.js';

/** A group: the exact names from the root down to it. */
type Path = Pick<JobFilter, 'project' | 'episode' | 'sequence'>;
const LEVELS: readonly FacetField[] = ['project', 'episode', 'sequence'];
/** A filter patch that clears every place field: picking a node replaces the place, it does not add to it. */
const NO_PLACE: JobFilter = {
  project: undefined,
  episode: undefined,
  sequence: undefined,
  shot: undefined,
  projectPrefix: undefined,
  episodePrefix: undefined,
  shotPrefix: undefined,
};
const SHOWN = 200;
/** Where the panel lies over the table (the same width as styles.css's `.tree` media query). */
const OVER_TABLE = '(max-width: 1399px)';
const NAMES: Partial<Record<FacetField, string>> = { project: 'project', episode: 'episode', sequence: 'sequence' };

/** The filter without its group and name parts: what the counts are of. */
function baseOf(f: JobFilter): JobFilter {
  const {
    project: _p,
    episode: _e,
    sequence: _s,
    shot: _h,
    projectPrefix: _pp,
    episodePrefix: _ep,
    shotPrefix: _sp,
    ...rest
  } = f;
  return cleanFilter(rest);
}

function samePath(a: Path, b: JobFilter): boolean {
  return (
    (a.project ?? '') === (b.project ?? '') &&
    (a.episode ?? '') === (b.episode ?? '') &&
    (a.sequence ?? '') === (b.sequence ?? '') &&
    !b.shot
  );
}

const jobs = (n: number) => `${n.toLocaleString()} job${n === 1 ? '' : 's'}`;

/** A group's count in words: "1,234 jobs in this view · 3 running · 2 failed". */
export function countWords(v: Pick<FacetValue, 'count' | 'running' | 'failed'>): string {
  return [
    `${jobs(v.count)} in this view`,
    ...(v.running > 0 ? [`${v.running.toLocaleString()} running`] : []),
    ...(v.failed > 0 ? [`${v.failed.toLocaleString()} failed`] : []),
  ].join(' · ');
}

const indent = (depth: number) => ({ paddingLeft: 10 + depth * 14 });

interface LevelProps {
  by: FacetField;
  path: Path;
  depth: number;
  /** A sequence was picked (the finest group). */
  onLeaf: () => void;
}

function Level({ by, path, depth, onLeaf }: LevelProps) {
  const client = useApp((s) => s.client);
  const filter = useApp((s) => s.query.filter);
  // The table has rows (or is loading new ones) while this level's answer is older: not "empty".
  const tableHasRows = useApp((s) => s.total > 0 || s.listStaleSeq > s.listFreshSeq);
  const base = baseOf(filter);
  const q = useLiveQuery(
    () => client.call('jobs.facets', { by, filter: { ...base, ...path }, limit: SHOWN }),
    [by, base, path],
    1_000,
  );
  if (q.error) return <div className="tree-note err small">{q.error}</div>;
  if (!q.data) return <div className="tree-note muted small">…</div>;
  const values = q.data.values;
  // Shot codes without a sequence (sh010, not sq010_sh010): the episode is the finest group.
  if (by === 'sequence' && values.length > 0 && values.every((v) => v.value === ''))
    return (
      <div className="tree-note muted small" style={indent(depth)}>
        its shot codes name no sequence
      </div>
    );
  if (values.length === 0)
    return (
      <div className="tree-note muted small" style={indent(depth)}>
        {depth === 0 && (q.loading || tableHasRows) ? '…' : 'no jobs in this view'}
      </div>
    );
  return (
    <>
      {values.map((v) => (
        <Node key={v.value} by={by} value={v} path={path} depth={depth} onLeaf={onLeaf} />
      ))}
      {q.data.more && (
        <div className="tree-note muted small" style={indent(depth)}>
          first {SHOWN} shown; filter to see more
        </div>
      )}
    </>
  );
}

function Node({ by, value, path, depth, onLeaf }: LevelProps & { value: FacetValue }) {
  const [open, setOpen] = useState(false);
  const filter = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  const mine: Path = { ...path, [by]: value.value };
  const next = LEVELS[LEVELS.indexOf(by) + 1];
  // Jobs whose shot codes name no sequence: counted here, but no filter picks just them.
  const noSequence = by === 'sequence' && value.value === '';
  const active = !noSequence && samePath(mine, filter);
  const words = countWords(value);
  const select = () => {
    setFilter({ ...NO_PLACE, ...mine });
    if (next) setOpen(true);
    else onLeaf();
  };
  return (
    <div className="tree-node" data-group={by} data-group-value={value.value}>
      <div className={`tree-row${active ? ' tree-active' : ''}`} style={{ paddingLeft: 6 + depth * 14 }}>
        {next ? (
          <button
            type="button"
            className="tree-twist"
            onClick={() => setOpen(!open)}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${value.value}`}
            aria-expanded={open}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tree-twist" aria-hidden />
        )}
        {noSequence ? (
          <span
            className="tree-label truncate muted"
            title={`${words}: shot codes without a sequence (sh010, not sq010_sh010); pick the episode to see them`}
          >
            <i>no sequence</i>
          </span>
        ) : (
          <button
            type="button"
            className="tree-label truncate"
            onClick={select}
            title={`${NAMES[by]} ${value.value}: ${words}`}
          >
            {value.value}
          </button>
        )}
        {value.running > 0 && (
          <span className="tree-dot tree-running" title={`${value.running.toLocaleString()} running`} />
        )}
        {value.failed > 0 && (
          <span className="tree-dot tree-failed" title={`${value.failed.toLocaleString()} failed`} />
        )}
        <span className="tree-count num" title={words} data-testid="tree-count">
          {value.count.toLocaleString()}
        </span>
      </div>
      {open && next && <Level by={next} path={mine} depth={depth + 1} onLeaf={onLeaf} />}
    </div>
  );
}

export function GroupTree({ onClose }: { onClose: () => void }) {
  const filter = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  const all = !filter.project && !filter.projectPrefix;
  const onLeaf = () => {
    if (window.matchMedia(OVER_TABLE).matches) onClose();
  };
  return (
    <aside className="tree" data-testid="group-tree" aria-label="Groups">
      <div className="tree-head">
        <span className="tree-title muted small">Project › episode › sequence</span>
        <button
          type="button"
          className="btn btn-ghost btn-sm tree-close"
          onClick={onClose}
          aria-label="Close the groups"
          title="Close the groups (the Groups button opens them again)"
          data-testid="tree-close"
        >
          ×
        </button>
      </div>
      <div className="tree-body">
        <div className={`tree-row tree-root${all && !filter.episode ? ' tree-active' : ''}`}>
          <button type="button" className="tree-label" onClick={() => setFilter(NO_PLACE)}>
            All projects
          </button>
        </div>
        <Level by="project" path={{}} depth={0} onLeaf={onLeaf} />
      </div>
    </aside>
  );
}
