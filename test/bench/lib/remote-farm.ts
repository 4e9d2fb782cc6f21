/** Parent side of sim-child.ts: a simulator farm in a child process, driven over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import type { SimInstanceOptions } from '../../simulator/index.js';
import type { SimEvent } from './sim-events.js';
import type { Counts } from '../../simulator/index.js';

const CHILD = new URL('./sim-child.ts', import.meta.url).pathname;

/** Node flags a forked TypeScript child needs (tsx's loader). */
export const TSX_EXEC_ARGV = ['--import', 'tsx'];

export interface RemoteFarm {
  urls: string[];
  pid: number;
  events(clear?: boolean): Promise<SimEvent[]>;
  counts(): Promise<Record<string, Counts>[]>;
  /** Requests per ComfyUI route, per instance (`GET /queue` → n). */
  requests(): Promise<Record<string, number>[]>;
  /** The child's process.cpuUsage() (µs). */
  cpu(): Promise<NodeJS.CpuUsage>;
  setScript(index: number, words: string[]): Promise<void>;
  fault(index: number, fault: 'restart' | 'crash'): Promise<void>;
  close(): Promise<void>;
}

/** `SHOTFARM_SIM_PROFILE=dir npm run bench -- …` writes the simulator child's CPU profile into dir. */
function profileArgv(): string[] {
  const dir = process.env.SHOTFARM_SIM_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

export async function startRemoteFarm(instances: SimInstanceOptions[]): Promise<RemoteFarm> {
  const child: ChildProcess = fork(CHILD, [], {
    execArgv: [...TSX_EXEC_ARGV, ...profileArgv()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let rid = 1;
  const waiting = new Map<number, (body: unknown) => void>();
  child.on('message', (raw) => {
    const { rid: r, body } = raw as { rid: number; body: unknown };
    waiting.get(r)?.(body);
    waiting.delete(r);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask = <T>(msg: Record<string, unknown>, id = rid++): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.set(id, (b) => resolve(b as T));
      child.send({ ...msg, rid: id }, (err) => err && reject(err));
    });
  const urls = await Promise.race([
    ask<string[]>({ op: 'start', instances }, 0),
    exited.then(() => {
      throw new Error('the simulator child exited before starting');
    }),
  ]);
  return {
    urls,
    pid: child.pid as number,
    events: (clear = false) => ask<SimEvent[]>({ op: 'events', clear }),
    counts: () => ask<Record<string, Counts>[]>({ op: 'counts' }),
    requests: () => ask<Record<string, number>[]>({ op: 'requests' }),
    cpu: () => ask<NodeJS.CpuUsage>({ op: 'cpu' }),
    setScript: async (index, words) => void (await ask({ op: 'script', index, words })),
    fault: async (index, fault) => void (await ask({ op: 'fault', index, fault })),
    async close() {
      if (child.exitCode !== null) return;
      const deadline = new Promise((r) => setTimeout(r, 5000).unref());
      // The child exits by itself just after answering (and writes its CPU profile if asked to).
      await Promise.race([ask({ op: 'close' }).then(() => exited), deadline]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
