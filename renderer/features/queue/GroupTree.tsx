/**
 * The queue grouped by project → episode → sequence → shot, with the number of jobs in each group
 * that the rest of the filter shows (its states, search, priority). Groups load as they are opened
 * (`jobs.facets`, one level at a time: 100k jobs are never listed here), and stay live. Clicking a
 * group shows just its jobs; an episode whose shot codes carry no sequence lists its shots directly.
 */
import { useState } from 'react';
import type { JobFilter } from '../../../shared/api.js';
import type { FacetField, FacetValue } from '../../../shared/domain.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { cleanFilter } from '../../store/queue-slice.js';
import { useApp } from '../../store/app-store.js';

/** A group: the exact names from the root down to it. */
type Path = Pick<JobFilter, 'project' | 'episode' | 'sequence' | 'shot'>;
const LEVELS: readonly FacetField[] = ['project', 'episode', 'sequence', 'shot'];
const SHOWN = 200;

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

function samePath(a: Path, b: Path): boolean {
  return (
    (a.project ?? '') === (b.project ?? '') &&
    (a.episode ?? '') === (b.episode ?? '') &&
    (a.sequence ?? '') === (b.sequence ?? '') &&
    (a.shot ?? '') === (b.shot ?? '')
  );
}

function Level({ by, path, depth }: { by: FacetField; path: Path; depth: number }) {
  const client = useApp((s) => s.client);
  const filter = useApp((s) => s.query.filter);
  const base = baseOf(filter);
  const q = useLiveQuery(
    () => client.call('jobs.facets', { by, filter: { ...base, ...path }, limit: SHOWN }),
    [by, base, path],
    1_000,
  );
  if (q.error) return <div className="tree-note err small">{q.error}</div>;
  if (!q.data) return <div className="tree-note muted small">…</div>;
  // Shot codes without a sequence: skip the level and list the shots.
  if (by === 'sequence' && q.data.values.every((v) => v.value === ''))
    return <Level by="shot" path={path} depth={depth} />;
  return (
    <>
      {q.data.values.map((v) => (
        <Node key={v.value} by={by} value={v} path={path} depth={depth} />
      ))}
      {q.data.more && (
        <div className="tree-note muted small" style={{ paddingLeft: 10 + depth * 14 }}>
          first {SHOWN} shown; filter to see more
        </div>
      )}
      {q.data.values.length === 0 && (
        <div className="tree-note muted small" style={{ paddingLeft: 10 + depth * 14 }}>
          no jobs in this view
        </div>
      )}
    </>
  );
}

function Node({ by, value, path, depth }: { by: FacetField; value: FacetValue; path: Path; depth: number }) {
  const [open, setOpen] = useState(false);
  const filter = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  const mine: Path = { ...path, [by]: value.value };
  const next = LEVELS[LEVELS.indexOf(by) + 1];
  const noSequence = by === 'sequence' && value.value === '';
  const active = samePath(mine, filter);
  const select = () => {
    if (noSequence) return setOpen(!open);
    setFilter({
      project: undefined,
      episode: undefined,
      sequence: undefined,
      shot: undefined,
      projectPrefix: undefined,
      episodePrefix: undefined,
      shotPrefix: undefined,
      ...mine,
    });
    if (next) setOpen(true);
  };
  return (
    <div className="tree-node" data-group={by} data-group-value={value.value}>
      <div className={`tree-row${active ? ' tree-active' : ''}`} style={{ paddingLeft: 6 + depth * 14 }}>
        {next ? (
          <button
            type="button"
            className="tree-twist"
            onClick={() => setOpen(!open)}
            aria-label={open ? 'Collapse' : 'Expand'}
            aria-expanded={open}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tree-twist" />
        )}
        <button
          type="button"
          className="tree-label truncate"
          onClick={select}
          title={value.value || 'shots without a sequence'}
        >
          {value.value || <i className="muted">no sequence</i>}
        </button>
        {value.running > 0 && <span className="tree-dot tree-running" title={`${value.running} running`} />}
        {value.failed > 0 && <span className="tree-dot tree-failed" title={`${value.failed} failed`} />}
        <span className="tree-count num">{value.count.toLocaleString()}</span>
      </div>
      {open && next && <Level by={noSequence ? 'shot' : next} path={noSequence ? path : mine} depth={depth + 1} />}
    </div>
  );
}

export function GroupTree() {
  const filter = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  const all = !filter.project && !filter.projectPrefix;
  return (
    <aside className="tree" data-testid="group-tree" aria-label="Groups">
      <div className={`tree-row tree-root${all && !filter.episode ? ' tree-active' : ''}`}>
        <button
          type="button"
          className="tree-label"
          onClick={() =>
            setFilter({
              project: undefined,
              episode: undefined,
              sequence: undefined,
              shot: undefined,
              projectPrefix: undefined,
              episodePrefix: undefined,
              shotPrefix: undefined,
            })
          }
        >
          All projects
        </button>
      </div>
      <Level by="project" path={{}} depth={0} />
    </aside>
  );
}
