/**
 * The virtualized queue table (TanStack Virtual): only the rows on screen exist in the DOM, and
 * only their pages are fetched, so 100k jobs scroll like 100.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, type MouseEvent, type MutableRefObject } from 'react';
import { openJob } from '../../lib/route.js';
import { withPeople } from '../../lib/permissions.js';
import type { SortKey } from '../../store/types.js';
import { useApp } from '../../store/app-store.js';
import { Empty } from '../../components/Empty.js';
import { emptyMayBeStale, emptyQueueWords } from '../../lib/queue-views.js';
import { JobRow } from './JobRow.js';

const ROW_HEIGHT = 38;

/** `people`: shown only on a farm with people (solo, every job is the one operator's). */
const COLUMNS: { label: string; sort?: SortKey; className?: string; people?: true }[] = [
  { label: 'Shot', sort: 'shot' },
  { label: 'Stage', sort: 'stage' },
  { label: 'Take', className: 'num' },
  { label: 'Priority', sort: 'priority' },
  { label: 'State', sort: 'state' },
  { label: 'Instance' },
  { label: 'Imported by', people: true },
  { label: 'Progress' },
  { label: 'Elapsed', className: 'num' },
  { label: 'ETA', className: 'num' },
  { label: 'Tries', className: 'num' },
];

function Header() {
  const sort = useApp((s) => s.query.sort);
  const descending = useApp((s) => s.query.descending);
  const setQuery = useApp((s) => s.setQuery);
  const people = useApp((s) => withPeople(s.session));
  return (
    <div className="row row-head" role="row">
      {COLUMNS.filter((c) => people || !c.people).map((c) => {
        const active = c.sort && sort === c.sort;
        return (
          <span
            key={c.label}
            role="columnheader"
            className={`cell${c.className ? ` ${c.className}` : ''}${c.sort ? ' sortable' : ''}${active ? ' sorted' : ''}`}
            onClick={() =>
              c.sort && setQuery(active ? { descending: !descending } : { sort: c.sort, descending: false })
            }
          >
            {c.label}
            {active && <span className="sort-arrow">{descending ? ' ↓' : ' ↑'}</span>}
          </span>
        );
      })}
    </div>
  );
}

/** While the rows are on their way: never an empty state the answer may contradict. */
function Loading() {
  return (
    <div data-testid="queue-loading">
      <Empty title="Loading jobs…" />
    </div>
  );
}

/** What an empty list says: an empty farm says how to import; a filter that hides everything offers the way out. */
function NoRows() {
  const byState = useApp((s) => s.status?.jobsByState ?? null);
  const filter = useApp((s) => s.query.filter);
  const setQuery = useApp((s) => s.setQuery);
  const pending = useApp((s) => s.listStaleSeq > s.listFreshSeq);
  const all = byState ? Object.values(byState).reduce((a, b) => a + b, 0) : 0;
  if (emptyMayBeStale(filter, byState, pending)) return <Loading />;
  if (!byState || all === 0)
    return (
      <Empty title="No jobs yet">
        Drop a shot list (JSON or CSV) anywhere on this window, or use Import…, to make jobs from it.
      </Empty>
    );
  const words = emptyQueueWords(filter, byState);
  return (
    <Empty title={words.title}>
      <p data-testid="empty-detail">{words.detail}</p>
      {words.hidden > 0 && (
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setQuery({ filter: filter.states ? { states: filter.states } : {} })}
          data-testid="clear-filters"
        >
          Clear search and filters
        </button>
      )}{' '}
      <button type="button" className="btn btn-sm" onClick={() => setQuery({ filter: {} })} data-testid="show-all">
        Show all jobs
      </button>
    </Empty>
  );
}

/** `scrollRef` is set to a function that brings a row into view (the keyboard's ↑/↓). */
export function JobTable({ scrollRef }: { scrollRef: MutableRefObject<(index: number) => void> }) {
  const total = useApp((s) => s.total);
  const generation = useApp((s) => s.generation);
  const loadedAny = useApp((s) => Object.keys(s.pages).length > 0);
  const pagesVersion = useApp((s) => s.pages);
  const showRange = useApp((s) => s.showRange);
  const clickRow = useApp((s) => s.clickRow);
  const idAt = useApp((s) => s.idAt);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 40;

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation asks for the visible range again even when the range is the same.
  useEffect(() => {
    showRange(first, Math.max(last, first + 40));
  }, [first, last, generation, showRange]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation (another filter or sort) scrolls back to the top; the effect reads nothing of it.
  useEffect(() => {
    parent.current?.scrollTo({ top: 0 });
  }, [generation]);

  scrollRef.current = (index) => virtualizer.scrollToIndex(index, { align: 'auto' });

  // A plain click selects the row and opens its drawer; Shift and Ctrl/Cmd only change the selection.
  const onClick = useCallback(
    (index: number, e: MouseEvent) => {
      const toggle = e.ctrlKey || e.metaKey;
      clickRow(index, { shift: e.shiftKey, toggle });
      const id = idAt(index);
      if (!e.shiftKey && !toggle && id) openJob(id);
    },
    [clickRow, idAt],
  );

  void pagesVersion;
  const people = useApp((s) => withPeople(s.session));
  return (
    <div className={`table${people ? ' table-people' : ''}`} role="grid" aria-rowcount={total}>
      <Header />
      <div className="table-body" ref={parent} data-testid="queue-body">
        {total === 0 && (loadedAny ? <NoRows /> : <Loading />)}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((v) => (
            <JobRow key={v.key} index={v.index} id={idAt(v.index)} top={v.start} height={v.size} onClick={onClick} />
          ))}
        </div>
      </div>
      <div className="table-foot muted small">
        {total.toLocaleString()} job{total === 1 ? '' : 's'} · click opens, Shift-click a range, Ctrl-click adds · Enter
        open · ↑↓ move · / search · Ctrl+A all shown · T top · H hold · R release · Del cancel · Esc close
      </div>
    </div>
  );
}
