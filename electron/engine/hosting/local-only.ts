/**
 * The local-only methods (shared/api.ts, LOCAL_ONLY_METHODS) as a page's transports refuse them:
 * the headless server's API (with 403) and the desktop window's IPC (in the preload and again in the
 * main process). The Studio UI is the same page in a browser and in the app, and it shows shot-list
 * text from outside, so neither may choose programs to run, S3 secrets, where a freeze writes or
 * the farm settings; the CLI on this machine, and the desktop shell's own menus, call the engine
 * directly and may.
 */
import { LOCAL_ONLY_METHODS, type ApiMethod } from '../../../shared/api.js';
import { errorEnvelope, type ErrorEnvelope } from '../../../shared/errors.js';

/** The envelope a page's transport answers for a local-only method, or null when the page may call it. */
export function localOnlyRefusal(method: ApiMethod): ErrorEnvelope | null {
  if (!LOCAL_ONLY_METHODS.has(method)) return null;
  return errorEnvelope('conflict', `${method} is only available from this machine's command line (shotfarm).`);
}
