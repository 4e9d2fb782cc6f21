/**
 * Where a RunPod endpoint's requests go, and so where the farm's RunPod API key goes (issue 29).
 *
 * The engine sends `Authorization: Bearer <key>` to every request of an endpoint, so the API base is
 * as sensitive as the key itself: whoever chooses it receives the key. The rule, in one place:
 * - RunPod's public API is every endpoint's base unless this machine says otherwise;
 * - another base is chosen only on the farm host (`shotfarm workers add-runpod --api-base`, the CLI
 *   calling the engine directly); a page's transport (the headless server's API, the desktop
 *   window's IPC) refuses an `apiBase` in the input with `forbidden`, whoever calls (the method
 *   table's field rule, shared/methods.ts);
 * - the row remembers whether its base was set that way (`instances.api_base_local`, migration
 *   0009); the key goes only to RunPod's own API or to a base so marked. A base written any other
 *   way (an older database, a future edit path) does not get the key: changing a base forgets it.
 * Pure: imported by the preload bundle too.
 */
import { normaliseApiBase, RUNPOD_API_BASE } from '../../../../shared/domain.js';

export { normaliseApiBase, RUNPOD_API_BASE };

/** The stored facts about an endpoint's base (the store applies RunPod's default base once). */
export interface ApiBaseFacts {
  runpod: { apiBase: string };
  apiBaseLocal: boolean;
}

/** Whether the farm's key may be sent to this endpoint's base. */
export function keyMayGoTo(row: ApiBaseFacts): boolean {
  return normaliseApiBase(row.runpod.apiBase) === RUNPOD_API_BASE || row.apiBaseLocal;
}

/** Why the key is withheld, for the endpoint's card (never the base's answer, never the key). */
export const KEY_WITHHELD =
  'the API base of this endpoint was not set on the farm host, so the RunPod key is not sent there; remove it and add it again with shotfarm workers add-runpod';
