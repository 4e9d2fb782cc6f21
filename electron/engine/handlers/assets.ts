/** The assets domain: the ledger's pages and approval (what a release freeze collects). */
import { listAssets, setApproved } from '../store/asset-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function assetHandlers(ctx: EngineContext): DomainHandlers<'assets'> {
  return {
    'assets.list': async (f) => listAssets(ctx.db, f),
    'assets.approve': async ({ ids, approved }) => ({ changed: setApproved(ctx.db, ids, approved) }),
  };
}
