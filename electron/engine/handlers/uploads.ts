/** The uploads domain: which of a page's input files the farm lacks (the files arrive on the server's PUT route). */
import { checkUploads } from '../uploads/import-uploads.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function uploadHandlers(ctx: EngineContext): DomainHandlers<'uploads'> {
  return {
    'uploads.check': async ({ files }) => checkUploads(ctx.db, ctx.dbFile, files),
  };
}
