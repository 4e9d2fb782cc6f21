/** Lets the operator name a job by its full id or a unique prefix of it (as `git` does with commits). */
import { ShotfarmError } from '../../shared/errors.js';
import type { Db } from '../engine/store/database.js';
import { jobIdsByPrefix } from '../engine/store/job-store.js';

export function resolveJobIds(db: Db, refs: readonly string[]): string[] {
  return refs.map((ref) => {
    const prefix = ref.trim().toLowerCase();
    if (!/^[0-9a-f-]{4,36}$/.test(prefix)) throw new ShotfarmError('bad_input', `"${ref}" is not a job id (hex digits and dashes).`);
    const hits = jobIdsByPrefix(db, prefix);
    if (hits.length === 0) throw new ShotfarmError('not_found', `No job id starts with ${prefix}.`);
    if (hits.length > 1) throw new ShotfarmError('bad_input', `${prefix} matches several jobs; give more of the id.`);
    return hits[0] as string;
  });
}
