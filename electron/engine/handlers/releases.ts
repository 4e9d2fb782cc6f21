/**
 * The releases domain: freeze an episode's approved files into a manifest; verify a manifest against
 * the files. Both stay inside the releases root (the releases_root setting, read at each call so a
 * change applies at once): a freeze writes only there, verify reads manifests only from there.
 */
import { freezeRelease } from '../freeze/freeze.js';
import { freezeFolder, verifyPath } from '../freeze/release-root.js';
import { verifyManifest, verifyPassed } from '../freeze/verify.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function releaseHandlers(ctx: EngineContext): DomainHandlers<'release'> {
  const root = (): string => ctx.settings.get('releases_root');
  return {
    'release.freeze': async (i) => freezeRelease(ctx.db, ctx.clock, { ...i, outDir: freezeFolder(root(), i.outDir) }),
    'release.verify': async ({ path, root: copy }) => {
      const r = root();
      const manifest = verifyPath(r, path, 'The manifest');
      const r2 = await verifyManifest(
        manifest,
        copy === undefined ? {} : { root: verifyPath(r, copy, 'The delivery folder') },
      );
      return { ...r2, passed: verifyPassed(r2) };
    },
  };
}
