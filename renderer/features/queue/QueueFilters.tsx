/** Filters: free-text search (debounced), project / episode by prefix with suggestions, state chips, and queue order. */
import { useEffect, useState, type RefObject } from 'react';
import { JOB_STATES, type JobState } from '../../../shared/job-states.js';
import { STATE_LABEL } from '../../lib/format.js';
import { withPeople } from '../../lib/permissions.js';
import { useApp } from '../../store/app-store.js';
import { SuggestFilter } from './SuggestFilter.js';

function SearchFilter({
  value,
  onChange,
  inputRef,
}: {
  value: string | undefined;
  onChange: (v: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the debounce restarts on typing only; a new onChange or value from the parent must not send the filter again.
  useEffect(() => {
    const t = setTimeout(() => text !== (value ?? '') && onChange(text), 250);
    return () => clearTimeout(t);
  }, [text]);
  return (
    <label className="field field-inline">
      <span className="field-label">Search</span>
      <input
        ref={inputRef}
        className="input"
        value={text}
        placeholder="shot, stage, template, reason…  ( / )"
        onChange={(e) => setText(e.target.value)}
        data-testid="search"
        onKeyDown={(e) => e.key === 'Escape' && (e.currentTarget.blur(), setText(''))}
      />
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
      <select
        className="input"
        value={sort}
        onChange={(e) => setQuery({ sort: e.target.value as typeof sort, descending: false })}
      >
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
  // "Mine": the jobs the signed-in person imported (a farm with people only).
  const me = useApp((s) => (withPeople(s.session) ? (s.session?.name ?? null) : null));
  const toggle = (st: JobState) =>
    setFilter({ states: states.includes(st) ? states.filter((x) => x !== st) : [...states, st] });
  // Suggestions count the jobs the rest of the filter shows (the states chosen, the project for episodes).
  const base = { ...(states.length ? { states } : {}) };
  const projectWithin = {
    ...base,
    ...(filter.project
      ? { project: filter.project }
      : filter.projectPrefix
        ? { projectPrefix: filter.projectPrefix }
        : {}),
  };
  return (
    <div className="filters">
      <SearchFilter value={filter.search} onChange={(v) => setFilter({ search: v })} inputRef={searchRef} />
      <SuggestFilter
        label="Project"
        by="project"
        exact={filter.project}
        prefix={filter.projectPrefix}
        within={base}
        testId="filter-project"
        onType={(v) =>
          setFilter({ projectPrefix: v, project: undefined, episode: undefined, sequence: undefined, shot: undefined })
        }
        onPick={(v) =>
          setFilter({ project: v, projectPrefix: undefined, episode: undefined, sequence: undefined, shot: undefined })
        }
      />
      <SuggestFilter
        label="Episode"
        by="episode"
        exact={filter.episode}
        prefix={filter.episodePrefix}
        within={projectWithin}
        testId="filter-episode"
        onType={(v) => setFilter({ episodePrefix: v, episode: undefined, sequence: undefined, shot: undefined })}
        onPick={(v) => setFilter({ episode: v, episodePrefix: undefined, sequence: undefined, shot: undefined })}
      />
      {me && (
        <button
          type="button"
          className={`chip chip-mine${filter.importedBy === me ? ' chip-on' : ''}`}
          aria-pressed={filter.importedBy === me}
          data-testid="filter-mine"
          title={`Only the jobs ${me} imported`}
          onClick={() => setFilter({ importedBy: filter.importedBy === me ? undefined : me })}
        >
          Mine
        </button>
      )}
      <div className="chips" role="group" aria-label="States">
        {JOB_STATES.map((st) => (
          <button
            type="button"
            key={st}
            className={`chip state-${st}${states.includes(st) ? ' chip-on' : ''}`}
            onClick={() => toggle(st)}
            data-filter-state={st}
            aria-pressed={states.includes(st)}
          >
            {STATE_LABEL[st]}
          </button>
        ))}
      </div>
    </div>
  );
}
