/**
 * The uploads domain: which of a page's input files the farm lacks (the files arrive on the
 * server's PUT route). The check is also the announcement: the missing files are reserved for the
 * caller, within the per-import and per-person limits (uploads/upload-gate.ts), and files no job
 * uses are swept now and then (uploads/upload-sweep.ts).
 */
import { actorName } from '../../../shared/people.js';
import { checkUploads, uploadKeeping, uploadLimits } from '../uploads/import-uploads.js';
import { checkPersonQuota } from '../uploads/upload-gate.js';
import { sweepUnusedUploads } from '../uploads/upload-sweep.js';
import { dirname } from 'node:path';
import type { DomainHandlers, EngineContext } from './context.js';

/** Sweeps the unused uploads when one is due; every upload path calls it (the check here, the PUT route). */
export function sweepUploadsIfDue(
  ctx: Pick<EngineContext, 'db' | 'dbFile' | 'clock' | 'uploadGate' | 'settings'>,
): void {
  const now = ctx.clock.now();
  if (ctx.uploadGate.sweepDue(now))
    sweepUnusedUploads(ctx.db, dirname(ctx.dbFile), now, uploadKeeping(ctx.settings).unusedKeepMs);
}

export function uploadHandlers(ctx: EngineContext): DomainHandlers<'uploads'> {
  return {
    'uploads.check': async ({ files }, caller) => {
      sweepUploadsIfDue(ctx);
      const now = ctx.clock.now();
      const check = checkUploads(ctx.db, ctx.settings, ctx.dbFile, files, now);
      const sizes = new Map(files.map((f) => [f.sha256, f.size]));
      const missing = check.missing.map((sha256) => ({ sha256, size: sizes.get(sha256) ?? 0 }));
      const sender = actorName(caller);
      checkPersonQuota(
        ctx.db,
        sender,
        missing.reduce((n, f) => n + f.size, 0),
        uploadKeeping(ctx.settings).personMaxBytes,
      );
      ctx.uploadGate.reserve(sender, missing, uploadLimits(ctx.settings).importMaxBytes, now);
      return check;
    },
  };
}
