/**
 * The job counts in the top bar, collapsed so the bar never overflows: a summary of what matters at
 * a glance (running, queued, failed, blocked) that opens the full list of every state. Each count
 * is a filter: clicking it shows those jobs in the queue.
 */
import { useEffect, useRef, useState } from 'react';
import { useFitLevel } from '../../lib/use-fit-level.js';
import { JOB_STATES, type JobState } from '../../../shared/job-states.js';
import type { JobFilter } from '../../../shared/api.js';
import { StatePill } from '../../components/StatePill.js';
import { go } from '../../lib/route.js';
import { useApp } from '../../store/app-store.js';

function useShowInQueue(): (filter: Pick<JobFilter, 'states' | 'blocked'>) => void {
  const setQuery = useApp((s) => s.setQuery);
  const filter = useApp((s) => s.query.filter);
  return (f) => {
    // Only the state part of the filter changes; a project or search the operator set stays.
    setQuery({ filter: { ...filter, states: f.states, blocked: f.blocked } });
    go('queue');
  };
}

interface SummaryCount {
  key: string;
  n: number;
  word: string;
  title: string;
}

/** What the summary keeps longest: what renders, what is next, what waits. */
const PRIMARY: ReadonlySet<string> = new Set(['running', 'next', 'queued']);

export function CountsSummary() {
  const byState = useApp((s) => s.status?.jobsByState);
  const blocked = useApp((s) => s.status?.blocked ?? 0);
  // Running jobs whose prompt waits on its workstation behind the running one (prefetch): "next", not running.
  const next = useApp((s) => s.status?.jobsNext ?? 0);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const show = useShowInQueue();
  const btn = useRef<HTMLButtonElement>(null);
  const fitKey = byState
    ? [byState.running, next, byState.queued, byState.failed_final + byState.timeout_kill, blocked]
        .map((n) => String(n).length)
        .join()
    : '';
  const level = useFitLevel(btn, 3, fitKey);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => !box.current?.contains(e.target as Node) && setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && (e.stopPropagation(), setOpen(false));
    window.addEventListener('mousedown', away);
    window.addEventListener('keydown', esc, true);
    return () => {
      window.removeEventListener('mousedown', away);
      window.removeEventListener('keydown', esc, true);
    };
  }, [open]);
  if (!byState) return null;
  const failed = byState.failed_final + byState.timeout_kill;
  const rendering = Math.max(0, byState.running - next);
  const pick = (f: Pick<JobFilter, 'states' | 'blocked'>) => {
    setOpen(false);
    show(f);
  };
  const counts: SummaryCount[] = [
    { key: 'running', n: rendering, word: 'running', title: `${rendering.toLocaleString()} rendering now` },
    ...(next > 0
      ? [
          {
            key: 'next',
            n: next,
            word: 'next',
            title: `${next.toLocaleString()} next: sent to a workstation, waiting there behind the prompt running now`,
          },
        ]
      : []),
    { key: 'queued', n: byState.queued, word: 'queued', title: `${byState.queued.toLocaleString()} queued` },
    ...(failed > 0
      ? [{ key: 'failed', n: failed, word: 'failed', title: `${failed.toLocaleString()} failed or timed out` }]
      : []),
    ...(blocked > 0
      ? [
          {
            key: 'blocked',
            n: blocked,
            word: 'blocked',
            title: `${blocked.toLocaleString()} blocked: no workstation could ever take them`,
          },
        ]
      : []),
  ];
  return (
    <div className="summary" ref={box}>
      <button
        type="button"
        className="summary-btn"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        aria-haspopup="true"
        data-testid="counts-summary"
        data-fit={level}
        ref={btn}
        title="Jobs by state: click for every state"
      >
        {counts.map((c) => {
          // Words while they fit; then words only on the first three; then the first three alone, worded;
          // then without words (every count keeps its label on hover; the full list is one click away).
          const shown = level < 2 || PRIMARY.has(c.key);
          const worded = level === 0 || (level < 3 && PRIMARY.has(c.key));
          return (
            shown && (
              <span key={c.key} className={`sum sum-${c.key}`} data-summary-state={c.key} title={c.title}>
                <i />
                <b>{c.n.toLocaleString()}</b>
                {worded && <span className="sum-word">{c.word}</span>}
              </span>
            )
          );
        })}
        <span className="chev" aria-hidden>
          ▾
        </span>
      </button>
      <div
        className={`counts-pop${open ? ' counts-pop-open' : ''}`}
        data-testid="counts"
        role="menu"
        aria-hidden={!open}
      >
        {JOB_STATES.map((s: JobState) => (
          <button
            type="button"
            key={s}
            className="count"
            data-count-state={s}
            role="menuitem"
            onClick={() => pick({ states: [s] })}
            tabIndex={open ? 0 : -1}
          >
            <StatePill state={s} /> <b>{byState[s].toLocaleString()}</b>
          </button>
        ))}
        <button
          type="button"
          className="count warn"
          data-count-state="blocked"
          role="menuitem"
          onClick={() => pick({ states: ['queued'], blocked: true })}
          tabIndex={open ? 0 : -1}
          title="Queued jobs no registered workstation could ever take (a tag, VRAM, a node or model)"
        >
          <span className="pill pill-blocked">Blocked</span> <b>{blocked.toLocaleString()}</b>
        </button>
      </div>
    </div>
  );
}
