/**
 * The forecast domain (docs/forecast.md): the forecast the engine keeps, recomputed as the farm
 * runs. In a process with no farm (the CLI's one-shot `status`) it is computed for the asking.
 */
import type { DomainHandlers, EngineContext } from './context.js';

export function forecastHandlers(ctx: EngineContext): DomainHandlers<'forecast'> {
  return {
    'forecast.get': async () => ctx.forecast.current(),
  };
}
