/** The hooks domain: the operator's hooks (this machine's settings only) and their deliveries. */
import { listDeliveries } from '../store/delivery-store.js';
import { getHooks, setHooks } from '../hooks/hook-settings.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function hookHandlers(ctx: EngineContext): DomainHandlers<'hooks'> {
  return {
    'hooks.list': async () => getHooks(ctx.db),
    'hooks.set': async ({ hooks }) => setHooks(ctx.db, ctx.clock, hooks),
    'hooks.deliveries': async (i) => listDeliveries(ctx.db, i),
  };
}
