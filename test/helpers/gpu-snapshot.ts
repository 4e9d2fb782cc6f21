/** What the dispatcher knows of a LAN workstation, for the policy's unit tests: a 24 GB one-slot GPU, idle. */
import type { ComfyClient } from '../../electron/engine/comfy/client.js';
import type { InstanceSnapshot } from '../../electron/engine/pools/comfy-lan/instance-snapshot.js';

export const GB = 1024 ** 3;

export function idleGpu(id: string): InstanceSnapshot {
  return {
    id,
    name: id,
    tags: [],
    maxConcurrency: 1,
    running: 0,
    runningVramGb: 0,
    largestRunningVramGb: 0,
    totalVramBytes: 24 * GB,
    otherVramBytes: 0,
    serverQueue: 0,
    lastCheckpoint: null,
    vramOverrides: {},
    speed: 1,
  };
}

/** A 24 GB RTX 4090 workstation's /system_stats (0.4 GB held by other processes, `active.gb` by ComfyUI), counting its reads. */
export function rtx4090Station(active: { gb: number }) {
  let reads = 0;
  const client = {
    getSystemStats: async () => {
      reads++;
      return {
        system: {},
        devices: [
          {
            name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
            type: 'cuda',
            index: 0,
            vram_total: 24 * GB,
            vram_free: (24 - 0.4 - active.gb) * GB,
            torch_vram_total: active.gb * GB,
            torch_vram_free: 0,
          },
        ],
      };
    },
  } as unknown as ComfyClient;
  return { client, reads: () => reads };
}
