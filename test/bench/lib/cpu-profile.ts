/**
 * A V8 CPU profile of this process over one measured window (`--profile FILE` on a bench): what
 * the engine did between two points, without the set-up around them. Open the file in Chrome's
 * DevTools (Performance → Load profile) or any .cpuprofile viewer.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import type { CpuProfile } from './profile-breakdown.js';

export interface CpuProfiler {
  stop(): Promise<string | null>;
}

function post<T>(s: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    s.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

/** Profiles this process from now until stop(), sampling every `intervalUs`; stop() returns the profile. */
export async function profileWindow(intervalUs = 500): Promise<{ stop(): Promise<CpuProfile> }> {
  const s = new Session();
  s.connect();
  await post(s, 'Profiler.enable');
  await post(s, 'Profiler.setSamplingInterval', { interval: intervalUs });
  await post(s, 'Profiler.start');
  return {
    async stop() {
      const { profile } = await post<{ profile: CpuProfile }>(s, 'Profiler.stop');
      s.disconnect();
      return profile;
    },
  };
}

/** Starts profiling when `file` is given; stop() writes it and returns its path (null when not profiling). */
export async function startCpuProfile(file: string | undefined): Promise<CpuProfiler> {
  if (!file) return { stop: async () => null };
  const w = await profileWindow();
  return {
    async stop() {
      writeFileSync(file, JSON.stringify(await w.stop()));
      return file;
    },
  };
}
