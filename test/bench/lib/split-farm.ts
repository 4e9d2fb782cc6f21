/**
 * A simulator farm spread over several child processes (remote-farm.ts each): at 200 GPUs one
 * simulator event loop would itself be the bottleneck the scale bench measures. Instances keep
 * their global index in the merged event list, so makespan and gap helpers read it as one farm.
 */
import type { SimInstanceOptions } from '../../simulator/index.js';
import { startRemoteFarm, type RemoteFarm } from './remote-farm.js';
import type { SimEvent } from './sim-events.js';

export interface SplitFarm {
  urls: string[];
  procs: number;
  pids: number[];
  events(clear?: boolean): Promise<SimEvent[]>;
  /** CPU (µs) summed over every simulator process. */
  cpu(): Promise<NodeJS.CpuUsage>;
  /** Requests per ComfyUI route summed over every instance (`GET /system_stats` → n). */
  requests(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Instances dealt into `procs` contiguous shares, one simulator process each. */
export async function startSplitFarm(instances: SimInstanceOptions[], procs: number): Promise<SplitFarm> {
  const n = Math.max(1, Math.min(procs, instances.length));
  const per = Math.ceil(instances.length / n);
  const shares: SimInstanceOptions[][] = [];
  for (let i = 0; i < instances.length; i += per) shares.push(instances.slice(i, i + per));
  const farms: RemoteFarm[] = await Promise.all(shares.map((s) => startRemoteFarm(s)));
  const offsets = shares.map((_, k) => k * per);
  return {
    urls: farms.flatMap((f) => f.urls),
    procs: farms.length,
    pids: farms.map((f) => f.pid),
    async events(clear = false) {
      const lists = await Promise.all(farms.map((f) => f.events(clear)));
      return lists.flatMap((l, k) => l.map((e) => ({ ...e, i: e.i + (offsets[k] as number) })));
    },
    async cpu() {
      const all = await Promise.all(farms.map((f) => f.cpu()));
      return all.reduce((a, c) => ({ user: a.user + c.user, system: a.system + c.system }), { user: 0, system: 0 });
    },
    async requests() {
      const sum: Record<string, number> = {};
      for (const perProc of await Promise.all(farms.map((f) => f.requests())))
        for (const inst of perProc) for (const [route, n] of Object.entries(inst)) sum[route] = (sum[route] ?? 0) + n;
      return sum;
    },
    async close() {
      await Promise.all(farms.map((f) => f.close()));
    },
  };
}
