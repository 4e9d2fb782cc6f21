/**
 * The CLI's exit codes (documented in docs/cli.md → "Exit codes"). Scripts and service probes rely
 * on them, so they never change meaning.
 */
import type { ErrorCode } from '../../shared/errors.js';

export const EXIT = {
  ok: 0,
  failure: 1, // unexpected error
  usage: 2, // wrong arguments
  badInput: 3, // a file or value was rejected; for import: some rows had errors (valid rows were stored)
  notFound: 4,
  conflict: 5, // the action does not apply to the job's state, a name is taken, serve's port is in use…
  storage: 6, // the database or a file could not be read or written (disk full, edited migration…)
  unhealthy: 7, // health: no workstation is healthy
  verifyMismatch: 8, // verify: a file listed in the manifest is missing, changed or unreadable
  cannotRun: 9, // run --until-idle: some jobs wait for something no registered workstation offers
  farmHeld: 10, // run, serve: another engine already runs this data folder's farm (the message says which, since when, what to do)
} as const;

/** The exit code of an error envelope; a refusal because another engine holds the farm has its own (its details carry `engineLock`). */
export function exitCodeFor(code: ErrorCode, details?: Record<string, unknown>): number {
  if (details && 'engineLock' in details) return EXIT.farmHeld;
  switch (code) {
    case 'bad_input':
      return EXIT.badInput;
    case 'not_found':
      return EXIT.notFound;
    case 'conflict':
      return EXIT.conflict;
    case 'storage':
      return EXIT.storage;
    case 'unavailable':
      return EXIT.unhealthy;
    case 'forbidden':
    case 'unauthorized':
      return EXIT.conflict;
    default:
      return EXIT.failure;
  }
}

/**
 * Wrong arguments found by a command itself (not by commander's parsing): exit 2 like commander's
 * own usage errors, with this message. E.g. `workers runpod-key` with nothing on stdin.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
