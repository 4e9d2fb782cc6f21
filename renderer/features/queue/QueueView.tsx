/**
 * The home view: the ready-made views (Active by default) and saved ones, filters, the group tree,
 * bulk actions, the virtualized job table, and the drawer of the job the address names.
 */
import { useCallback, useRef, useState } from 'react';
import { useRoute } from '../../lib/route.js';
import { ActionBar } from './ActionBar.js';
import { JobDrawer } from './drawer/JobDrawer.js';
import { GroupTree } from './GroupTree.js';
import { JobTable } from './JobTable.js';
import { QueueFilters } from './QueueFilters.js';
import { FilterNotes, QueuePresets } from './QueuePresets.js';
import { SavedViews } from './SavedViews.js';
import { CopyLink } from './CopyLink.js';
import { useQueueKeys } from './use-queue-keys.js';

const GROUPS_KEY = 'shotfarm.queue.groups';

/** The group tree is open by default where there is room for it beside the table; the choice is remembered. */
function useGroupsOpen(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(() => {
    const saved = window.localStorage.getItem(GROUPS_KEY);
    return saved === null ? window.innerWidth >= 1440 : saved === '1';
  });
  return [open, (o) => (window.localStorage.setItem(GROUPS_KEY, o ? '1' : '0'), setOpen(o))];
}

export function QueueView() {
  const searchRef = useRef<HTMLInputElement>(null);
  const scrollRef = useRef<(index: number) => void>(() => undefined);
  const scrollTo = useCallback((i: number) => scrollRef.current(i), []);
  const { jobId } = useRoute();
  const [groups, setGroups] = useGroupsOpen();
  useQueueKeys(searchRef, jobId !== null, scrollTo);
  return (
    <section className="view view-queue">
      <div className="queue-head">
        <button
          type="button"
          className={`btn btn-sm${groups ? ' btn-on' : ''}`}
          onClick={() => setGroups(!groups)}
          aria-pressed={groups}
          data-testid="groups-toggle"
          title="Group by project → episode → sequence → shot"
        >
          Groups
        </button>
        <QueuePresets />
        <FilterNotes />
        <span className="spacer" />
        <SavedViews />
        <CopyLink />
      </div>
      <QueueFilters searchRef={searchRef} />
      <ActionBar />
      <div className="queue-main">
        {groups && <GroupTree />}
        <JobTable scrollRef={scrollRef} />
        {jobId && <JobDrawer key={jobId} id={jobId} />}
      </div>
    </section>
  );
}
