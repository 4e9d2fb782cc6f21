/** Filters: state chips, project / episode, free-text search (debounced), and queue order. */
import { useEffect, useState, type RefObject } from 'react';
import { JOB_STATES, type JobState } from '../../../shared/job-states.js';
import { STATE_LABEL } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';

function useDebounced(value: string, ms: number, apply: (v: string) => void): void {
  useEffect(() => {
    const t = setTimeout(() => apply(value), ms);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, ms]);
}

function TextFilter({ label, value, onChange, inputRef, placeholder, testId }: {
  label: string; value: string | undefined; onChange: (v: string) => void; inputRef?: RefObject<HTMLInputElement | null>; placeholder: string; testId: string;
}) {
  const [text, setText] = useState(value ?? '');
  useDebounced(text, 250, (v) => v !== (value ?? '') && onChange(v));
  return (
    <label className="field field-inline">
      <span className="field-label">{label}</span>
      <input ref={inputRef} className="input" value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} data-testid={testId}
        onKeyDown={(e) => e.key === 'Escape' && (e.currentTarget.blur(), setText(''))} />
    </label>
  );
}

/** Dispatch order or another sort; shown at the right of the action bar to keep the filters on one line. */
export function QueueOrder() {
  const sort = useApp((s) => s.query.sort);
  const setQuery = useApp((s) => s.setQuery);
  return (
      <label className="field field-inline order">
        <span className="field-label">Order</span>
        <select className="input" value={sort} onChange={(e) => setQuery({ sort: e.target.value as typeof sort, descending: false })}>
          <option value="queue">Dispatch order</option>
          <option value="updated">Last change</option>
          <option value="enqueued">Enqueued</option>
          <option value="shot">Shot</option>
          <option value="stage">Stage</option>
          <option value="priority">Priority</option>
          <option value="state">State</option>
        </select>
      </label>
  );
}

export function QueueFilters({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const filter = useApp((s) => s.query.filter);
  const setFilter = useApp((s) => s.setFilter);
  const states = filter.states ?? [];
  const toggle = (st: JobState) => setFilter({ states: states.includes(st) ? states.filter((x) => x !== st) : [...states, st] });
  return (
    <div className="filters">
      <TextFilter label="Search" value={filter.search} onChange={(v) => setFilter({ search: v })} inputRef={searchRef} placeholder="shot, stage, template, reason…  ( / )" testId="search" />
      <TextFilter label="Project" value={filter.project} onChange={(v) => setFilter({ project: v })} placeholder="all" testId="filter-project" />
      <TextFilter label="Episode" value={filter.episode} onChange={(v) => setFilter({ episode: v })} placeholder="all" testId="filter-episode" />
      <div className="chips" role="group" aria-label="States">
        {JOB_STATES.map((st) => (
          <button key={st} className={`chip state-${st}${states.includes(st) ? ' chip-on' : ''}`} onClick={() => toggle(st)} data-filter-state={st} aria-pressed={states.includes(st)}>
            {STATE_LABEL[st]}
          </button>
        ))}
        {states.length > 0 && <button className="chip chip-clear" onClick={() => setFilter({ states: [] })}>All states</button>}
      </div>
    </div>
  );
}
