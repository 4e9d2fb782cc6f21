/**
 * One health probe of one ComfyUI instance (SPEC §6): /system_stats and /queue, each bounded by a
 * short timeout. Returns an observation; deciding what it means for scheduling is the caller's.
 */
import type { InstanceAdminState, InstanceHealth, ProbeView } from '../../../shared/domain.js';
import { ComfyClient } from '../comfy/client.js';
import { describeFailure, settle } from '../comfy/observation.js';
import { vramBreakdown } from '../comfy/vram.js';

export type ProbeResult = ProbeView;

/**
 * The health word one probe gives a workstation that is not disabled (a one-off check: the
 * scheduler's registry decides with the history of several probes).
 */
export function healthAfterProbe(adminState: InstanceAdminState, p: ProbeResult): InstanceHealth {
  if (!p.ok) return 'unhealthy';
  if (adminState === 'draining') return 'draining';
  return p.queueRunning + p.queuePending > 0 ? 'busy' : 'idle';
}

export async function probeInstance(url: string, timeoutMs = 1500, now: () => number = Date.now): Promise<ProbeResult> {
  const client = new ComfyClient(url, { timeoutMs });
  const start = now();
  const [stats, queue] = await Promise.all([settle(() => client.getSystemStats()), settle(() => client.getQueue())]);
  const latencyMs = now() - start;
  if (!stats.ok) return { ok: false, error: `/system_stats: ${describeFailure(stats.failure)}`, latencyMs };
  if (!queue.ok) return { ok: false, error: `/queue: ${describeFailure(queue.failure)}`, latencyMs };
  const v = vramBreakdown(stats.value);
  return {
    ok: true,
    gpuName: v?.gpuName ?? null,
    vram: v
      ? {
          totalBytes: v.totalBytes,
          comfyBytes: v.comfyActiveBytes,
          otherBytes: v.otherProcessesBytes,
          freeBytes: Math.max(0, v.totalBytes - v.comfyActiveBytes - v.otherProcessesBytes),
        }
      : null,
    comfyVersion: typeof stats.value.system.comfyui_version === 'string' ? stats.value.system.comfyui_version : null,
    queueRunning: queue.value.running.length,
    queuePending: queue.value.pending.length,
    latencyMs,
  };
}
