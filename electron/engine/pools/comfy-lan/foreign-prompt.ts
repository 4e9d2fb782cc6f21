/**
 * A server that answered POST /prompt with another prompt id than the one Shotfarm sent: an old
 * ComfyUI that ignores the client's `prompt_id` and mints its own (docs/comfyui-protocol.md §13),
 * or something in front of it that rewrites the body. Shotfarm follows, recovers and deduplicates
 * by its own id, so a run under a foreign id can be neither followed nor collected — posting again
 * would only render the shot again for nobody. So it is an observation of its own: the run is taken
 * off that server (best effort), the job is retried elsewhere, and the workstation is put out of
 * use at once (quarantine) instead of being sent the next attempt.
 */
import { settle } from '../../comfy/observation.js';
import type { ComfyClient } from '../../comfy/client.js';
import type { Outcome } from './attempt-scope.js';

export async function foreignPromptId(
  client: ComfyClient,
  sent: string,
  got: string,
  signal?: AbortSignal,
): Promise<Outcome> {
  // Pending: removed from the queue; running: interrupted by its id (a no-op on servers that
  // interrupt globally only while it is not the one running — then the delete has taken it).
  await settle(() => client.deleteFromQueue([got], signal ? { signal } : {}));
  await settle(() => client.interrupt(got, signal ? { signal } : {}));
  return { kind: 'failed', obs: { kind: 'foreign_prompt_id', sent, got } };
}
