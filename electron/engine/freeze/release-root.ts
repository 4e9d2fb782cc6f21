/**
 * The releases root (farm setting `releases_root`, default `<data>/releases`): the one folder
 * release.freeze writes into and release.verify reads manifests from. Both are open to callers who
 * should not choose arbitrary paths on this machine (verify over the network API, both from the
 * desktop page), so a path is resolved against the root when relative, must stay inside it when
 * absolute, and is checked again by its real path so a link cannot lead out.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ShotfarmError } from '../../../shared/errors.js';

function within(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (a folder not made yet). */
function realOfNearest(p: string): string {
  let probe = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(probe), ...rest.reverse());
    } catch {
      const up = dirname(probe);
      if (up === probe) return p;
      rest.push(probe.slice(up.length).replace(/^[\\/]+/, ''));
      probe = up;
    }
  }
}

function outside(what: string, given: string, root: string): ShotfarmError {
  return new ShotfarmError(
    'bad_input',
    `${what} ${given} is outside the releases root ${root}: releases are written and verified only inside it. ` +
      'Give a folder name inside it (e.g. Moonfall-ep101-v1), or point the releases_root setting elsewhere (shotfarm settings set releases_root DIR).',
    { details: { releasesRoot: root } },
  );
}

/** Where a path given to release.* lands: relative → inside the root; absolute → must already be inside. */
function place(root: string, given: string, what: string): string {
  if (given.includes('\0')) throw new ShotfarmError('bad_input', `${what} contains a NUL character.`);
  const target = isAbsolute(given) ? resolve(given) : resolve(root, given);
  if (!within(root, target)) throw outside(what, given, root);
  // The root itself may be a link (it is the operator's); anything below it must not lead out.
  if (!within(realOfNearest(root), realOfNearest(target))) throw outside(what, given, root);
  return target;
}

/** The folder a freeze writes to: a folder of its own inside the root (created with the root if missing). */
export function freezeFolder(root: string, outDir: string): string {
  const target = place(root, outDir, 'The release folder');
  if (resolve(target) === resolve(root)) {
    throw new ShotfarmError(
      'bad_input',
      `Give the release a folder of its own inside the releases root ${root} (e.g. Moonfall-ep101-v1), not the root itself.`,
    );
  }
  try {
    mkdirSync(root, { recursive: true });
  } catch (err) {
    throw new ShotfarmError('storage', `The releases root ${root} cannot be created: ${(err as Error).message}`);
  }
  return target;
}

/** A manifest (or a delivery copy's folder) to verify: inside the root, by its real path too. */
export function verifyPath(root: string, given: string, what: string): string {
  return place(root, given, what);
}
