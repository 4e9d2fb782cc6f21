/**
 * A V8 CPU profile of this process over one measured window (`--profile FILE` on a bench): what
 * the engine did between two points, without the set-up around them. Open the file in Chrome's
 * DevTools (Performance → Load profile) or any .cpuprofile viewer.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

export interface CpuProfiler {
  stop(): Promise<string | null>;
}

function post<T>(s: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    s.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

/** Starts profiling when `file` is given; stop() writes it and returns its path (null when not profiling). */
export async function startCpuProfile(file: string | undefined): Promise<CpuProfiler> {
  if (!file) return { stop: async () => null };
  const s = new Session();
  s.connect();
  await post(s, 'Profiler.enable');
  await post(s, 'Profiler.setSamplingInterval', { interval: 500 });
  await post(s, 'Profiler.start');
  return {
    async stop() {
      const { profile } = await post<{ profile: unknown }>(s, 'Profiler.stop');
      s.disconnect();
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
