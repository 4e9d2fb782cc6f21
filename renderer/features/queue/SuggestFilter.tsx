/**
 * A name filter that matches by prefix as the operator types ("moon" finds Moonfall and Moonlight)
 * and suggests the names that exist (the engine's `jobs.facets`), with their job counts. Picking a
 * suggestion filters on that name exactly. ↓/↑ move through the suggestions, Enter picks, Esc closes.
 */
import { useEffect, useRef, useState } from 'react';
import type { JobFilter } from '../../../shared/api.js';
import type { FacetField, FacetValue } from '../../../shared/domain.js';
import { useApp } from '../../store/app-store.js';

interface Props {
  label: string;
  by: FacetField;
  /** What the field holds now: the exact name, else the typed prefix. */
  exact: string | undefined;
  prefix: string | undefined;
  /** Narrows the suggestions (an episode's within the chosen project). */
  within: JobFilter;
  onType(prefix: string): void;
  onPick(value: string): void;
  testId: string;
}

export function SuggestFilter({ label, by, exact, prefix, within, onType, onPick, testId }: Props) {
  const client = useApp((s) => s.client);
  const [text, setText] = useState(exact ?? prefix ?? '');
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<FacetValue[]>([]);
  const [active, setActive] = useState(-1);
  const typed = useRef(false);
  useEffect(() => setText(exact ?? prefix ?? ''), [exact, prefix]);

  // The filter follows the typing (debounced); suggestions while the list is open.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filter follows the typed text only; onType and the current value are read when it fires.
  useEffect(() => {
    if (!typed.current) return;
    const t = setTimeout(() => text !== (prefix ?? '') && onType(text), 250);
    return () => clearTimeout(t);
  }, [text]);
  const withinKey = JSON.stringify(within);
  // biome-ignore lint/correctness/useExhaustiveDependencies: suggestions are asked again only when the list opens or what they depend on changes; `within` is compared by its JSON (withinKey).
  useEffect(() => {
    if (!open) return;
    let live = true;
    const t = setTimeout(() => {
      client.call('jobs.facets', { by, prefix: text.trim() || undefined, filter: within, limit: 12 }).then(
        (f) => live && (setValues(f.values.filter((v) => v.value !== '')), setActive(-1)),
        () => live && setValues([]),
      );
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [open, text, by, withinKey, client]);

  const pick = (v: string) => {
    typed.current = false;
    setText(v);
    setOpen(false);
    onPick(v);
  };
  return (
    <label className="field field-inline suggest">
      <span className="field-label">{label}</span>
      <input
        className={`input${exact ? ' input-exact' : ''}`}
        value={text}
        placeholder="all"
        data-testid={testId}
        role="combobox"
        aria-expanded={open && values.length > 0}
        aria-autocomplete="list"
        title={
          exact ? `exactly “${exact}” (type to match by the start of the name)` : 'matches names starting with this'
        }
        onChange={(e) => {
          typed.current = true;
          setText(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 120)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setOpen(true);
            setActive((a) => Math.max(-1, Math.min(values.length - 1, a + (e.key === 'ArrowDown' ? 1 : -1))));
          } else if (e.key === 'Enter' && active >= 0 && values[active]) {
            e.preventDefault();
            pick(values[active].value);
          } else if (e.key === 'Escape') {
            if (open) setOpen(false);
            else {
              typed.current = true;
              setText('');
            }
            e.stopPropagation();
          }
        }}
      />
      {open && values.length > 0 && (
        <ul className="suggestions" role="listbox" data-testid={`${testId}-suggestions`}>
          {values.map((v, i) => (
            <li
              key={v.value}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : ''}
              onMouseDown={(e) => (e.preventDefault(), pick(v.value))}
            >
              <span className="truncate">{v.value}</span>
              <span className="muted num">{v.count.toLocaleString()}</span>
            </li>
          ))}
        </ul>
      )}
    </label>
  );
}
