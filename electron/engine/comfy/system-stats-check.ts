// Whether a /system_stats answer describes a GPU that can exist. The schema only checks types; a
// server (or something pretending to be one) may still say "no device", a negative VRAM total or
// an exabyte, and a workstation that reports such figures cannot be matched to jobs — it is
// unhealthy, with the reason in words, instead of "healthy" with jobs waiting and no reason why.
import type { SystemStats } from './schemas.js';

/** More VRAM than any GPU has: 1 PiB. */
export const MAX_PLAUSIBLE_VRAM_BYTES = 1024 ** 5;

const GB = 1024 ** 3;

function amount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.abs(n) >= GB ? `${Math.round((n / GB) * 10) / 10} GB` : `${n} bytes`;
}

/** The first implausible figure, in words ("reports no GPU (devices is empty)"), or null when all are plausible. */
export function systemStatsProblem(stats: Pick<SystemStats, 'devices'>): string | null {
  if (stats.devices.length === 0)
    return 'reports no GPU (its device list is empty): start ComfyUI with a GPU it can use, or check that this URL is a ComfyUI server';
  for (const [i, d] of stats.devices.entries()) {
    const which =
      stats.devices.length > 1 ? `device ${i} (${d.name.slice(0, 60)})` : `its GPU (${d.name.slice(0, 60)})`;
    const figures = {
      vram_total: d.vram_total,
      vram_free: d.vram_free,
      torch_vram_total: d.torch_vram_total,
      torch_vram_free: d.torch_vram_free,
    };
    for (const [field, v] of Object.entries(figures)) {
      if (!Number.isFinite(v)) return `reports ${field} ${String(v)} for ${which}, which is not a number of bytes`;
      if (v < 0) return `reports a negative ${field} (${amount(v)}) for ${which}`;
      if (v > MAX_PLAUSIBLE_VRAM_BYTES)
        return `reports ${field} ${amount(v)} for ${which}, more than any GPU has (over 1 PB)`;
    }
    if (d.vram_total === 0) return `reports 0 bytes of VRAM for ${which}`;
    // Counters are sampled at slightly different moments; only a clear contradiction counts.
    if (d.vram_free > d.vram_total * 1.01)
      return `reports more free VRAM (${amount(d.vram_free)}) than ${which} has (${amount(d.vram_total)})`;
    if (d.torch_vram_total > d.vram_total * 1.01)
      return `reports ComfyUI holding more VRAM (${amount(d.torch_vram_total)}) than ${which} has (${amount(d.vram_total)})`;
  }
  return null;
}
