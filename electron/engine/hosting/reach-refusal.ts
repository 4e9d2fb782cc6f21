/**
 * The method table's reach (shared/methods.ts) as a transport refuses a call before the engine sees
 * it: `serve`'s API (the network door, 403), the desktop page's IPC (in the preload and again in the
 * main process). The Studio UI is the same page in a browser and in the app, and it shows shot-list
 * text from outside, so neither may choose programs to run, S3 secrets, where a freeze writes or
 * where outputs go; the CLI on this machine, and the desktop shell's own menus, call the engine
 * directly and may. One code for every such refusal: `forbidden`.
 */
import type { ApiMethod } from '../../../shared/api.js';
import { errorEnvelope, type ErrorEnvelope } from '../../../shared/errors.js';
import { reachRefusal, type Door } from '../../../shared/methods.js';

/** The envelope a transport at `door` answers for this call, or null when the call may go through. */
export function doorRefusal(door: Door, method: ApiMethod, input: unknown): ErrorEnvelope | null {
  const words = reachRefusal(door, method, input);
  return words === null ? null : errorEnvelope('forbidden', words);
}

/** What `serve`'s API refuses (a browser page, a script with a token, the desktop in studio mode). */
export function networkRefusal(method: ApiMethod, input: unknown): ErrorEnvelope | null {
  return doorRefusal('network', method, input);
}

/** What the desktop window's page is refused: the local-only methods, the methods no view calls, the folder settings. */
export function desktopPageRefusal(method: ApiMethod, input: unknown): ErrorEnvelope | null {
  return doorRefusal('desktopPage', method, input);
}
