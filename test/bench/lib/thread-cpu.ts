/**
 * Where a process's CPU goes, by thread: the main thread (JavaScript, SQLite, the event loop)
 * against the rest (V8's GC and compiler threads, libuv's pool running fs calls and fsync).
 * process.cpuUsage() sums every thread; Node 20 has no per-thread call, so this reads Linux's
 * /proc/self/task/<tid>/stat (utime + stime, in clock ticks of 10 ms). Elsewhere: null.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  mainMs: number;
  otherMs: number;
}

const TICK_MS = 10; // CLK_TCK is 100 on Linux builds Node supports

function ticksOf(tid: string): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), 1-based from the state field: utime is 12th, stime 13th.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

export function threadCpu(): ThreadCpu | null {
  if (process.platform !== 'linux') return null;
  try {
    let main = 0;
    let other = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      let t: number;
      try {
        t = ticksOf(tid);
      } catch {
        continue;
      } // a thread that ended between the two reads
      if (Number(tid) === process.pid) main += t;
      else other += t;
    }
    return { mainMs: main * TICK_MS, otherMs: other * TICK_MS };
  } catch {
    return null;
  }
}

/** The CPU spent since `before`, by thread kind (threads that ended in between are lost from `otherMs`). */
export function threadCpuSince(before: ThreadCpu | null): ThreadCpu | null {
  const now = threadCpu();
  if (!before || !now) return null;
  return { mainMs: now.mainMs - before.mainMs, otherMs: Math.max(0, now.otherMs - before.otherMs) };
}
