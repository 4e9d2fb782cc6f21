/** Saved queue views: save the filter and order under a name, bring one back with a click (kept in this browser). */
import { useEffect, useRef, useState } from 'react';
import { cleanFilter } from '../../store/queue-slice.js';
import { deleteView, readViews, saveView, type SavedView } from '../../lib/saved-views.js';
import { useApp } from '../../store/app-store.js';

export function SavedViews() {
  const query = useApp((s) => s.query);
  const setQuery = useApp((s) => s.setQuery);
  const [views, setViews] = useState<SavedView[]>(() => readViews(window.localStorage));
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => !box.current?.contains(e.target as Node) && setOpen(false);
    window.addEventListener('mousedown', away);
    return () => window.removeEventListener('mousedown', away);
  }, [open]);
  const save = () => {
    if (!name.trim()) return;
    setViews(
      saveView(window.localStorage, {
        name: name.trim(),
        filter: cleanFilter(query.filter),
        sort: query.sort,
        descending: query.descending,
      }),
    );
    setName('');
  };
  return (
    <div className="saved-views" ref={box}>
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        data-testid="saved-views"
      >
        Views ▾
      </button>
      {open && (
        <div className="popover" role="dialog" aria-label="Saved views">
          {views.length === 0 && <div className="muted small pad">No saved views yet.</div>}
          {views.map((v) => (
            <div key={v.name} className="saved-view">
              <button
                type="button"
                className="btn btn-ghost btn-sm grow"
                data-saved-view={v.name}
                onClick={() => (setQuery({ filter: v.filter, sort: v.sort, descending: v.descending }), setOpen(false))}
              >
                {v.name}
              </button>
              <button
                type="button"
                className="icon-btn"
                aria-label={`Delete ${v.name}`}
                onClick={() => setViews(deleteView(window.localStorage, v.name))}
              >
                ×
              </button>
            </div>
          ))}
          <form className="saved-form" onSubmit={(e) => (e.preventDefault(), save())}>
            <input
              className="input input-sm"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="Name this view…"
              maxLength={60}
              data-testid="saved-view-name"
            />
            <button className="btn btn-sm btn-primary" type="submit" disabled={!name.trim()}>
              Save
            </button>
          </form>
        </div>
      )}
    </div>
  );
}
