/** The assets domain: the ledger's pages, approval (what a release freeze collects), and the file to serve for an id. */
import { actorName } from '../../../shared/people.js';
import { confineAssetFile } from '../files/asset-file.js';
import { assetById, listAssets, setApproved } from '../store/asset-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function assetHandlers(ctx: EngineContext): DomainHandlers<'assets'> {
  return {
    'assets.list': async (f) => listAssets(ctx.db, f),
    'assets.approve': async ({ ids, approved }, caller) => ({
      changed: setApproved(ctx.db, ids, approved, actorName(caller), ctx.clock.now()),
    }),
    'assets.file': async ({ id }) => {
      const asset = assetById(ctx.db, id);
      if (!asset) return { ok: false, refusal: 'unknown', message: `No asset ${id} in the ledger.` };
      // Outputs may sit under any folder output_root pointed to when they were written.
      const [current, ...earlier] = ctx.settings.outputRoots();
      const answer = confineAssetFile(asset, current as string);
      if (answer.ok) return answer;
      return earlier.map((root) => confineAssetFile(asset, root)).find((a) => a.ok) ?? answer;
    },
  };
}
