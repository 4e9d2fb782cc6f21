/**
 * The ledger's page, held still: the first answer's ledger position is kept, and later reads (on
 * every job event) ask up to it, so a new output never moves a card under the pointer. The answer
 * counts the outputs stored since ("12 new outputs — show"); `showNewer` moves the position up. A
 * new filter starts from the newest again, and an empty page takes the first outputs as they come.
 */
import { useState } from 'react';
import type { AssetPage } from '../../../shared/domain.js';
import { useLiveQuery, type LiveQuery } from '../../store/use-live-query.js';
import { useApp } from '../../store/app-store.js';

export interface LedgerFilter {
  project?: string;
  episode?: string;
  shot?: string;
  search?: string;
}

export interface LedgerPage extends LiveQuery<AssetPage> {
  /** Outputs stored since the page was held. */
  newer: number;
  showNewer(): void;
}

export function useLedgerPage(filter: LedgerFilter, limit: number, version: number): LedgerPage {
  const client = useApp((s) => s.client);
  const key = JSON.stringify(filter);
  const [held, setHeld] = useState<{ key: string; upTo: number } | null>(null);
  const upTo = held?.key === key ? held.upTo : null;
  const q = useLiveQuery(
    async () => {
      const page = await client.call('assets.list', { ...filter, limit, ...(upTo !== null ? { upTo } : {}) });
      // The first page of a filter is the newest: hold it there. An empty page has nothing to move:
      // the first outputs show as they come.
      if (upTo === null || (page.rows.length === 0 && page.newer > 0)) setHeld({ key, upTo: page.position });
      return page;
    },
    [key, limit, upTo, version],
    2_000,
  );
  const position = q.data?.position;
  return {
    ...q,
    newer: upTo !== null ? (q.data?.newer ?? 0) : 0,
    showNewer: () => position !== undefined && setHeld({ key, upTo: position }),
  };
}
