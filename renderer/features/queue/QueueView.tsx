/**
 * The home view: the ready-made views (Active by default) and saved ones, filters, the group tree,
 * bulk actions, the virtualized job table, and the drawer of the job the address names.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useRoute } from '../../lib/route.js';
import { useApp } from '../../store/app-store.js';
import { ActionBar } from './ActionBar.js';
import { JobDrawer } from './drawer/JobDrawer.js';
import { GroupTree } from './GroupTree.js';
import { ForecastPanel } from './ForecastPanel.js';
import { JobTable } from './JobTable.js';
import { QueueFilters } from './QueueFilters.js';
import { FilterNotes, QueuePresets } from './QueuePresets.js';
import { SavedViews } from './SavedViews.js';
import { CopyLink } from './CopyLink.js';
import { useQueueKeys } from './use-queue-keys.js';

const GROUPS_KEY = 'shotfarm.queue.groups';
/** Below this width the tree lies over the table (GroupTree's OVER_TABLE, styles.css's `.tree`). */
const ROOMY = '(min-width: 1400px)';

/**
 * Whether the window has room for the tree beside the table, following resizes: a tree over the
 * table hides the first rows' shot names, so it never opens there by itself.
 */
function useRoomy(): boolean {
  const [roomy, setRoomy] = useState(() => window.matchMedia(ROOMY).matches);
  useEffect(() => {
    const media = window.matchMedia(ROOMY);
    const follow = () => setRoomy(media.matches);
    media.addEventListener('change', follow);
    return () => media.removeEventListener('change', follow);
  }, []);
  return roomy;
}

/**
 * The group tree is open where there is room for it beside the table and closed where it would lie
 * over it (the Groups button opens it); once the person opens or closes it, that choice is kept
 * (per browser) at every width.
 */
function useGroupsOpen(): [boolean, (open: boolean) => void] {
  const roomy = useRoomy();
  const [chosen, setChosen] = useState<boolean | null>(() => {
    const saved = window.localStorage.getItem(GROUPS_KEY);
    return saved === null ? null : saved === '1';
  });
  return [chosen ?? roomy, (o) => (window.localStorage.setItem(GROUPS_KEY, o ? '1' : '0'), setChosen(o))];
}

const FORECAST_KEY = 'shotfarm.queue.forecast';

/** The Forecast panel is closed until opened; the choice is kept per browser. */
function useForecastOpen(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(() => window.localStorage.getItem(FORECAST_KEY) === '1');
  return [open, (o) => (window.localStorage.setItem(FORECAST_KEY, o ? '1' : '0'), setOpen(o))];
}

export function QueueView() {
  const searchRef = useRef<HTMLInputElement>(null);
  const scrollRef = useRef<(index: number) => void>(() => undefined);
  const scrollTo = useCallback((i: number) => scrollRef.current(i), []);
  const { jobId } = useRoute();
  const [groups, setGroups] = useGroupsOpen();
  const [forecastOpen, setForecastOpen] = useForecastOpen();
  useQueueKeys(searchRef, jobId !== null, scrollTo);
  const late = useApp((s) => s.forecast?.groups.filter((g) => g.kind === 'episode' && g.late).length ?? 0);
  return (
    <section className="view view-queue">
      <div className="queue-head">
        <button
          type="button"
          className={`btn btn-sm${groups ? ' btn-on' : ''}`}
          onClick={() => setGroups(!groups)}
          aria-pressed={groups}
          data-testid="groups-toggle"
          title="Groups: project › episode › sequence, with their job counts"
        >
          Groups
        </button>
        <button
          type="button"
          className={`btn btn-sm${forecastOpen ? ' btn-on' : ''}`}
          onClick={() => setForecastOpen(!forecastOpen)}
          aria-pressed={forecastOpen}
          data-testid="forecast-toggle"
          title="Forecast: when each episode is expected to be done, against its due time"
        >
          Forecast{late > 0 ? ` · ${late} late` : ''}
        </button>
        <QueuePresets />
        <FilterNotes />
        <span className="spacer" />
        <SavedViews />
        <CopyLink />
      </div>
      <QueueFilters searchRef={searchRef} />
      <ActionBar />
      {forecastOpen && <ForecastPanel onClose={() => setForecastOpen(false)} />}
      <div className="queue-main">
        {groups && <GroupTree onClose={() => setGroups(false)} />}
        <JobTable scrollRef={scrollRef} />
        {jobId && <JobDrawer key={jobId} id={jobId} />}
      </div>
    </section>
  );
}
