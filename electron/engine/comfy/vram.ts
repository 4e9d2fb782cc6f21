// What a server's /system_stats says about VRAM, split the way admission needs it (protocol §7,
// SPEC §3). Pure. ComfyUI keeps models cached on purpose, so "free" alone is a poor signal: memory
// ComfyUI holds (activeBytes) is reclaimable by ComfyUI for the next prompt, memory held by other
// processes is not.
import type { DeviceStats, SystemStats } from './schemas.js';

export interface VramBreakdown {
  /** `name` as ComfyUI reports it, e.g. "cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync". */
  deviceName: string;
  /** The GPU model alone, e.g. "NVIDIA GeForce RTX 4090". */
  gpuName: string;
  /** `cuda`, `cpu`, `mps`, `xpu`… */
  deviceType: string;
  /** Driver total (`vram_total`). */
  totalBytes: number;
  /** What the next prompt can use once ComfyUI unloads its caches: total − not-usable. */
  usableByComfyBytes: number;
  /** Live PyTorch tensors of ComfyUI (loaded weights, cached intermediates): reserved − reserved-free. */
  comfyActiveBytes: number;
  /**
   * Not usable by ComfyUI: other processes on the GPU plus this process's non-PyTorch memory
   * (CUDA context, a few hundred MB). A large value means a foreign process — OOM risk.
   */
  otherProcessesBytes: number;
  /** Free without unloading anything: driver free + PyTorch's reserved-but-free (`vram_free`). */
  freeBytes: number;
}

/** Breakdown for one device (default: the primary, `devices[0]`); null if the server lists none. */
export function vramBreakdown(stats: Pick<SystemStats, 'devices'>, deviceIndex = 0): VramBreakdown | null {
  const d = stats.devices[deviceIndex];
  return d ? deviceBreakdown(d) : null;
}

export function deviceBreakdown(d: DeviceStats): VramBreakdown {
  const totalBytes = d.vram_total;
  const comfyActiveBytes = nonNegative(d.torch_vram_total - d.torch_vram_free);
  // vram_free already includes torch_vram_free (driver free + torch free), hence the identity:
  // notUsable = total − (driver free) − torch_total = total − vram_free − torch_total + torch_free.
  const otherProcessesBytes = nonNegative(d.vram_total - d.vram_free - d.torch_vram_total + d.torch_vram_free);
  return {
    deviceName: d.name,
    gpuName: gpuNameFromDevice(d.name),
    deviceType: d.type,
    totalBytes,
    usableByComfyBytes: nonNegative(totalBytes - otherProcessesBytes),
    comfyActiveBytes,
    otherProcessesBytes,
    freeBytes: nonNegative(d.vram_free),
  };
}

/**
 * `"<device> <GPU name> : <allocator backend>"` → GPU name. The device token is `cuda:0`,
 * `xpu:0`…; names without the pattern (`"cpu"`, `"mps"`) are returned trimmed as they are.
 */
export function gpuNameFromDevice(name: string): string {
  let s = name.trim();
  const device = /^[a-z]+:\d+\s+/i.exec(s);
  if (device) s = s.slice(device[0].length);
  const backend = s.lastIndexOf(' : ');
  if (backend > 0) s = s.slice(0, backend);
  return s.trim();
}

// Counters are sampled at slightly different instants; tiny negatives are noise, not meaning.
function nonNegative(n: number): number {
  return Math.max(n, 0);
}
