/**
 * Retry and new take from the Failures view: only the jobs whose state allows it are sent; more
 * than a few at once ask first (renderer/lib/bulk-confirm.ts), saying what will happen.
 */
import { useState, type ReactNode } from 'react';
import type { JobView } from '../../../shared/domain.js';
import { actionAllowed } from '../../../shared/job-states.js';
import { errorMessage } from '../../client/client.js';
import { Confirm } from '../../components/Confirm.js';
import { asksFirst, counted } from '../../lib/bulk-confirm.js';
import { useApp } from '../../store/app-store.js';

type FailureAction = 'retry' | 'newTake';

export interface FailureActions {
  run(action: FailureAction, jobs: readonly JobView[]): void;
  /** The open confirmation, if any: render it in the view. */
  confirmDialog: ReactNode;
}

const WHAT: Record<FailureAction, (n: number) => string> = {
  retry: (n) => `${counted(n, 'job')} go back to the queue as the same take and are rendered again with the same seed.`,
  newTake: (n) =>
    `${counted(n, 'new take')} ${n === 1 ? 'is' : 'are'} queued, each with a new seed unless its seed is pinned; the failed takes stay in the history, superseded.`,
};

export function useFailureActions(): FailureActions {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [asking, setAsking] = useState<{ action: FailureAction; ids: string[] } | null>(null);

  const send = async (action: FailureAction, ids: string[]) => {
    try {
      const done = await client.call(action === 'retry' ? 'jobs.retry' : 'jobs.newTake', { ids });
      notify('success', `${action === 'retry' ? 'Retrying' : 'New take for'} ${counted(done.length, 'job')}.`);
    } catch (err) {
      notify('error', errorMessage(err));
    }
  };
  const run = (action: FailureAction, jobs: readonly JobView[]) => {
    const ids = jobs.filter((j) => actionAllowed(action, j.state)).map((j) => j.id);
    if (!ids.length) return;
    if (asksFirst(ids.length)) setAsking({ action, ids });
    else void send(action, ids);
  };
  const confirmDialog = asking && (
    <Confirm
      title={
        asking.action === 'retry'
          ? `Retry ${counted(asking.ids.length, 'job')}?`
          : `Make ${counted(asking.ids.length, 'new take')}?`
      }
      confirmLabel={asking.action === 'retry' ? `Retry ${asking.ids.length}` : `Make ${asking.ids.length} new takes`}
      onCancel={() => setAsking(null)}
      onConfirm={() => {
        setAsking(null);
        void send(asking.action, asking.ids);
      }}
    >
      {WHAT[asking.action](asking.ids.length)}
    </Confirm>
  );
  return { run, confirmDialog };
}
