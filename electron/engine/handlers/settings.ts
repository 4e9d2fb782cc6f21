/**
 * The settings domain: the optional S3 copy of outputs. Reading shows where the credentials come
 * from, never what they are; writing is local-only (the setting may carry secrets) and takes effect
 * when the farm next starts.
 */
import { describeS3Settings, getS3Settings, setS3Settings } from '../storage/s3-settings.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function settingsHandlers(ctx: EngineContext): DomainHandlers<'storage'> {
  return {
    'storage.get': async () => {
      const s = getS3Settings(ctx.db);
      return { s3: s ? describeS3Settings(s) : null };
    },
    'storage.set': async ({ s3 }) => {
      const saved = setS3Settings(ctx.db, ctx.clock, s3);
      return { s3: saved ? describeS3Settings(saved) : null };
    },
  };
}
