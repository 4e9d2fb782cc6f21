/** What the dispatcher knows of a LAN workstation, for the policy's unit tests: a 24 GB one-slot GPU, idle. */
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
