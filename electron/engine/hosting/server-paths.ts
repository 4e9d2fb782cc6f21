/**
 * Remote callers get status, route and kind words, never the farm host's own paths: an absolute
 * path in an error (the data folder in a storage error, "looked at /srv/inputs/…" for an input, a
 * file in `details`) maps the server's disk for whoever asks, and names where its secrets sit.
 * The answer says "[a path on the farm host]" instead; the whole sentence goes to the local log
 * (serve's stderr), where the operator who can act on it reads it.
 *
 * A path here is absolute with at least two segments (`/srv/shotfarm`, `C:\farm`, `\\nas\share`),
 * standing on its own (after a space, a quote or a bracket — not inside a URL); the API's own routes
 * (`/api/…`, `/files/…`) are words about the request, not the disk, and stay.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorEnvelope } from '../../../shared/errors.js';

export const SERVER_PATH_WORDS = '[a path on the farm host]';

const SEG = '[^\\s"\'`()<>,;/\\\\]';
const START = '(?<=^|[\\s"\'`(=\\[{,;])';
const POSIX = `\\/(?!api\\/|files\\/)${SEG}+(?:\\/${SEG}*)+`;
const WINDOWS = '(?:[A-Za-z]:[\\\\/]|\\\\\\\\)[^\\s"\'`()<>,;]+';
const PATH = new RegExp(`${START}(?:${POSIX}|${WINDOWS})`, 'g');

/** A quoted absolute path, spaces and all: `"/srv/my farm/db"`. */
const QUOTED = /(["'`])((?:\/(?!api\/|files\/)[^"'`\n/]+\/|[A-Za-z]:[\\/]|\\\\)[^"'`\n]*)\1/g;

/** `text` with each absolute path replaced (a sentence's closing dot or colon kept). */
export function withoutServerPaths(text: string): string {
  return text
    .replace(QUOTED, (_m, q: string) => `${q}${SERVER_PATH_WORDS}${q}`)
    .replace(PATH, (p) => {
      const tail = /[.:]+$/.exec(p)?.[0] ?? '';
      return `${SERVER_PATH_WORDS}${tail}`;
    });
}

function scrubValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return withoutServerPaths(v);
  if (depth <= 0 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => scrubValue(x, depth - 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubValue(x, depth - 1)]));
}

/** The envelope as a remote caller may see it (the same object when nothing was withheld). */
export function remoteEnvelope(env: ErrorEnvelope): ErrorEnvelope {
  const message = withoutServerPaths(env.message);
  const details = env.details === undefined ? undefined : (scrubValue(env.details, 4) as ErrorEnvelope['details']);
  if (message === env.message && JSON.stringify(details) === JSON.stringify(env.details)) return env;
  return { ...env, message, ...(details === undefined ? {} : { details }) };
}

/** Full sentences withheld from answers, per response, until the server logs them. */
const withheld = new WeakMap<ServerResponse, string>();

export function noteWithheld(res: ServerResponse, message: string): void {
  withheld.set(res, message);
}

/** The sentence withheld from this response's answer (once), for the local log. */
export function takeWithheld(res: ServerResponse): string | null {
  const m = withheld.get(res) ?? null;
  withheld.delete(res);
  return m;
}
