/** The hooks domain: the operator's hooks (this machine's settings only; every method is local-only) and their deliveries. */
import { addHook, getHooks, removeHook, setHooks } from '../hooks/hook-settings.js';
import { listDeliveries } from '../store/delivery-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function hookHandlers(ctx: EngineContext): DomainHandlers<'hooks'> {
  return {
    'hooks.list': async () => getHooks(ctx.db),
    'hooks.set': async ({ hooks }) => setHooks(ctx.db, ctx.clock, hooks),
    'hooks.add': async ({ hook }) => addHook(ctx.db, ctx.clock, hook),
    'hooks.remove': async ({ id }) => {
      removeHook(ctx.db, ctx.clock, id);
      return getHooks(ctx.db);
    },
    'hooks.deliveries': async (i) => listDeliveries(ctx.db, i),
  };
}
