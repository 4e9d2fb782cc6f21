/**
 * One health probe of one ComfyUI instance (SPEC §6): /system_stats and /queue, each bounded by a
 * short timeout. Returns an observation; deciding what it means for scheduling is the caller's.
 * Its error is in Shotfarm's own words: a workstation URL may point at something that is not
 * ComfyUI (an internal service), and what that answers is never repeated into the UI. Figures no
 * GPU can have make the probe fail too, with the reason.
 */
import type { InstanceAdminState, InstanceHealth, ProbeView } from '../../../shared/domain.js';
import { ComfyClient } from '../comfy/client.js';
import { describeFailure, settle, type ComfyFailure } from '../comfy/observation.js';
import { systemStatsProblem } from '../comfy/system-stats-check.js';
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

/** What a failed probe says, per route: the failure's kind and status, never the answer's text. */
export function probeError(route: '/system_stats' | '/queue', f: ComfyFailure): string {
  switch (f.kind) {
    case 'http':
      return f.status === 404 || f.status === 405
        ? `${route}: HTTP ${f.status}, no such route here: is this URL a ComfyUI server (its own port, e.g. :8188)?`
        : `${route}: HTTP ${f.status}`;
    case 'malformed':
      return `${route}: the answer is not ComfyUI's (${f.detail}): is this URL a ComfyUI server?`;
    case 'refused':
      return `${route}: connection refused: is ComfyUI running on that port?`;
    default:
      return `${route}: ${describeFailure(f)}`;
  }
}

export async function probeInstance(url: string, timeoutMs = 1500, now: () => number = Date.now): Promise<ProbeResult> {
  const client = new ComfyClient(url, { timeoutMs });
  const start = now();
  const [stats, queue] = await Promise.all([settle(() => client.getSystemStats()), settle(() => client.getQueue())]);
  const latencyMs = now() - start;
  if (!stats.ok) return { ok: false, error: probeError('/system_stats', stats.failure), latencyMs };
  if (!queue.ok) return { ok: false, error: probeError('/queue', queue.failure), latencyMs };
  const implausible = systemStatsProblem(stats.value);
  if (implausible) return { ok: false, error: `/system_stats ${implausible}`, latencyMs };
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
