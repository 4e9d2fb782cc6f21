/** The releases domain: freeze an episode's approved files into a manifest; verify a manifest against the files. */
import { freezeRelease } from '../freeze/freeze.js';
import { verifyManifest, verifyPassed } from '../freeze/verify.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function releaseHandlers(ctx: EngineContext): DomainHandlers<'release'> {
  return {
    'release.freeze': async (i) => freezeRelease(ctx.db, ctx.clock, i),
    'release.verify': async ({ path, root }) => {
      const r = await verifyManifest(path, root === undefined ? {} : { root });
      return { ...r, passed: verifyPassed(r) };
    },
  };
}
