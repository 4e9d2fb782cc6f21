/**
 * "Test connection" for a workstation not saved yet: the same probe the farm makes
 * (health/probe.ts: /system_stats and /queue), then its node list (/object_info) to count the node
 * classes installed. Nothing is stored; the words are the probe's own.
 */
import type { ConnectionTestView } from '../../../shared/domain.js';
import { ComfyClient } from '../comfy/client.js';
import { describeFailure, settle } from '../comfy/observation.js';
import { probeInstance } from './probe.js';

/** /object_info is large and slow (the server rescans its model folders): it gets longer than a probe. */
const NODE_LIST_TIMEOUT_FACTOR = 4;

export async function testConnection(url: string, timeoutMs: number): Promise<ConnectionTestView> {
  const probe = await probeInstance(url, timeoutMs);
  if (!probe.ok) return { url, probe, nodeCount: null, nodeError: null };
  const nodes = await settle(() =>
    new ComfyClient(url, { timeoutMs: timeoutMs * NODE_LIST_TIMEOUT_FACTOR }).getObjectInfo(),
  );
  return nodes.ok
    ? { url, probe, nodeCount: Object.keys(nodes.value).length, nodeError: null }
    : { url, probe, nodeCount: null, nodeError: `the node list did not come: ${describeFailure(nodes.failure)}` };
}
