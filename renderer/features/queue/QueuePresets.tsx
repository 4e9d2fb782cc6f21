/**
 * The queue's ready-made views (lib/queue-views.ts) as one row of buttons with their counts — Active
 * by default, Done one click away — and what else narrows the list now (group, blocked), each with
 * a way out.
 */
import { QUEUE_PRESETS, presetCount, presetOf } from '../../lib/queue-views.js';
import { useApp } from '../../store/app-store.js';

export function QueuePresets() {
  const states = useApp((s) => s.query.filter.states);
  const byState = useApp((s) => s.status?.jobsByState);
  const setFilter = useApp((s) => s.setFilter);
  const current = presetOf(states);
  return (
    <div className="seg presets" role="group" aria-label="Queue views">
      {QUEUE_PRESETS.map((p) => (
        <button
          type="button"
          key={p.id}
          className={`seg-btn${current?.id === p.id ? ' seg-on' : ''}`}
          title={p.title}
          data-preset={p.id}
          aria-pressed={current?.id === p.id}
          onClick={() => setFilter({ states: [...p.states], blocked: undefined })}
        >
          {p.label}
          {byState && <span className="seg-count">{presetCount(p, byState).toLocaleString()}</span>}
        </button>
      ))}
    </div>
  );
}

/** The parts of the filter that are not on screen as inputs: the group picked in the tree, "blocked only". */
export function FilterNotes() {
  const f = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  // Project and episode show in their inputs; a sequence or shot picked in the tree shows here.
  const deeper = f.sequence || f.shot;
  return (
    <>
      {deeper && (
        <span className="note-chip" data-testid="group-filter">
          {[f.sequence, f.shot].filter(Boolean).join(' / ')}
          <button
            type="button"
            className="icon-btn"
            aria-label="Clear the group"
            onClick={() => setFilter({ sequence: undefined, shot: undefined })}
          >
            ×
          </button>
        </span>
      )}
      {f.blocked && (
        <span className="note-chip warn" data-testid="blocked-filter">
          blocked only
          <button
            type="button"
            className="icon-btn"
            aria-label="Show all queued"
            onClick={() => setFilter({ blocked: undefined })}
          >
            ×
          </button>
        </span>
      )}
    </>
  );
}
