/**
 * The hooks domain: the operator's hooks (this machine's settings only; every method is local-only)
 * and their deliveries. A webhook URL often carries its token (in the path, the query or the user
 * part), so no answer shows it whole: every hook goes out masked. A list sent back as it was shown
 * (the masked URL of a hook with the same id) keeps the stored URL; a masked URL for anything else
 * is refused rather than stored as `***`.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { maskedHook, type HookConfig } from '../../../shared/hooks.js';
import { MASK, maskUrlSecrets } from '../../../shared/url.js';
import { addHook, getHooks, removeHook, setHooks } from '../hooks/hook-settings.js';
import { listDeliveries } from '../store/delivery-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

/** Puts the stored URL back where a hook comes back with the mask it was shown with. */
function unmask(incoming: readonly HookConfig[], stored: readonly HookConfig[]): HookConfig[] {
  const byId = new Map(stored.map((h) => [h.id, h]));
  return incoming.map((h) => {
    if (h.kind !== 'webhook' || !h.url.includes(MASK)) return h;
    const old = byId.get(h.id);
    if (old?.kind === 'webhook' && maskUrlSecrets(old.url) === h.url) return { ...h, url: old.url };
    throw new ShotfarmError('bad_input', `Hook "${h.id}": its URL is masked (${MASK}); send the full webhook URL.`);
  });
}

export function hookHandlers(ctx: EngineContext): DomainHandlers<'hooks'> {
  const masked = (hooks: readonly HookConfig[]): HookConfig[] => hooks.map(maskedHook);
  return {
    'hooks.list': async () => masked(getHooks(ctx.db)),
    'hooks.set': async ({ hooks }) => masked(setHooks(ctx.db, ctx.clock, unmask(hooks, getHooks(ctx.db)))),
    'hooks.add': async ({ hook }) => maskedHook(addHook(ctx.db, ctx.clock, unmask([hook], [])[0] as HookConfig)),
    'hooks.remove': async ({ id }) => {
      removeHook(ctx.db, ctx.clock, id);
      return masked(getHooks(ctx.db));
    },
    'hooks.deliveries': async (i) => listDeliveries(ctx.db, i),
  };
}
