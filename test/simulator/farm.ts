// A farm: several simulator instances, e.g. one per simulated GPU workstation.

import { startSimInstance, type SimInstance } from './instance.js';
import type { SimInstanceOptions } from './options.js';

export type FarmOptions =
  | { instances: SimInstanceOptions[] }
  | { count: number; basePort?: number; template?: SimInstanceOptions };

export interface SimFarm {
  instances: SimInstance[];
  close(): Promise<void>;
}

export async function startSimFarm(opts: FarmOptions): Promise<SimFarm> {
  const list: SimInstanceOptions[] =
    'instances' in opts
      ? opts.instances.map((o, i) => ({ name: `sim${i}`, ...o }))
      : Array.from({ length: opts.count }, (_, i) => ({
          ...opts.template,
          name: `${opts.template?.name ?? 'sim'}${i}`,
          // basePort 0/undefined: every instance asks the OS for a free port.
          port: opts.basePort ? opts.basePort + i : 0,
        }));
  const instances: SimInstance[] = [];
  try {
    for (const o of list) instances.push(await startSimInstance(o));
  } catch (e) {
    await Promise.all(instances.map((i) => i.close()));
    throw e;
  }
  return {
    instances,
    close: async () => {
      await Promise.all(instances.map((i) => i.close()));
    },
  };
}
