/**
 * Approving outputs for the release freeze, one or many: shown at once (held until the ledger says
 * the same), sent as one call; more than a few at once ask first (lib/bulk-confirm.ts).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { AssetView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Confirm } from '../../components/Confirm.js';
import { asksFirst, counted } from '../../lib/bulk-confirm.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';

export interface Approval {
  /** The approval to show for an output: the one just asked for, until the ledger answers with it. */
  shown(a: AssetView): boolean;
  set(assets: readonly AssetView[], approved: boolean): void;
  confirmDialog: ReactNode;
}

export function useApproval(rows: readonly AssetView[] | undefined, onDone: () => void): Approval {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [pending, setPending] = useState<Record<string, boolean>>({});
  const [asking, setAsking] = useState<{ ids: string[]; approved: boolean } | null>(null);
  // A role without approvals (artists, operators): the keys and buttons do nothing, as the server would refuse.
  const { may } = useMay();
  // What the ledger now says the same as was asked for is settled; a failed call drops its ids itself.
  useEffect(() => {
    if (!rows) return;
    setPending((p) => {
      const left = Object.entries(p).filter(([id, v]) => rows.find((r) => r.id === id)?.approved !== v);
      return left.length === Object.keys(p).length ? p : Object.fromEntries(left);
    });
  }, [rows]);

  const send = async (ids: string[], approved: boolean) => {
    setPending((p) => ({ ...p, ...Object.fromEntries(ids.map((id) => [id, approved])) }));
    try {
      await client.call('assets.approve', { ids, approved });
      if (ids.length > 1)
        notify('success', `${approved ? 'Approved' : 'Unapproved'} ${counted(ids.length, 'output')}.`);
    } catch (err) {
      notify('error', errorMessage(err));
      setPending((p) => Object.fromEntries(Object.entries(p).filter(([id]) => !ids.includes(id))));
    } finally {
      // The page is read again; its answer settles what was shown meanwhile.
      onDone();
    }
  };

  const set = (assets: readonly AssetView[], approved: boolean) => {
    if (!may('approvals')) return;
    const ids = assets.filter((a) => (pending[a.id] ?? a.approved) !== approved).map((a) => a.id);
    if (!ids.length) return;
    if (asksFirst(ids.length)) setAsking({ ids, approved });
    else void send(ids, approved);
  };

  const confirmDialog = asking && (
    <Confirm
      title={`${asking.approved ? 'Approve' : 'Unapprove'} ${counted(asking.ids.length, 'output')}?`}
      confirmLabel={`${asking.approved ? 'Approve' : 'Unapprove'} ${asking.ids.length}`}
      danger={!asking.approved}
      onCancel={() => setAsking(null)}
      onConfirm={() => {
        setAsking(null);
        void send(asking.ids, asking.approved);
      }}
    >
      {asking.approved
        ? `The next release freeze of their episodes collects these ${asking.ids.length} files (and re-hashes each against the ledger).`
        : `A release freeze leaves these ${asking.ids.length} files out until they are approved again.`}
    </Confirm>
  );
  return { shown: (a) => pending[a.id] ?? a.approved, set, confirmDialog };
}
