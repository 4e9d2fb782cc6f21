/** The home view: filters, bulk actions and the virtualized job table. */
import { useRef } from 'react';
import { ActionBar } from './ActionBar.js';
import { JobTable } from './JobTable.js';
import { QueueFilters } from './QueueFilters.js';
import { useQueueKeys } from './use-queue-keys.js';

export function QueueView() {
  const searchRef = useRef<HTMLInputElement>(null);
  useQueueKeys(searchRef);
  return (
    <section className="view view-queue">
      <QueueFilters searchRef={searchRef} />
      <ActionBar />
      <JobTable />
    </section>
  );
}
