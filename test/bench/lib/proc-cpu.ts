/**
 * CPU time of other processes, from Linux's /proc (utime + stime, clock ticks of 10 ms): an engine
 * child by pid (its main thread apart from the rest — the PostgreSQL bridge worker, V8's and libuv's
 * threads), and a PostgreSQL server with all its backends (the postmaster's children). Where a
 * share of the farm's CPU goes when engines are added. Elsewhere (or a process gone): null.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICK_MS = 10; // CLK_TCK is 100 on Linux builds Node supports

/** utime + stime (ms) and the parent pid from a /proc stat file's text. */
function parseStat(stat: string): { ms: number; ppid: number } {
  // Fields after the command name (which may hold spaces), 1-based from the state field: ppid is 2nd, utime 12th, stime 13th.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ms: (Number(rest[11]) + Number(rest[12])) * TICK_MS, ppid: Number(rest[1]) };
}

export interface ProcessCpu {
  /** The main thread: JavaScript, the event loop. */
  mainMs: number;
  /** Every other thread (the bridge worker's JavaScript and libpq-free socket work, GC, libuv). */
  otherMs: number;
}

/** One process's CPU by thread kind, or null when it is gone (or off Linux). */
export function processCpu(pid: number): ProcessCpu | null {
  if (process.platform !== 'linux' || !pid) return null;
  try {
    let mainMs = 0;
    let otherMs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let ms: number;
      try {
        ms = parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')).ms;
      } catch {
        continue; // a thread that ended between the two reads
      }
      if (Number(tid) === pid) mainMs += ms;
      else otherMs += ms;
    }
    return { mainMs, otherMs };
  } catch {
    return null;
  }
}

/** The CPU (ms) of a PostgreSQL server in `dataDir`: the postmaster and every backend and helper it forked. */
export function postgresCpuMs(dataDir: string): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let total = 0;
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const s = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
        if (Number(name) === postmaster || s.ppid === postmaster) total += s.ms;
      } catch {
        // a process that ended while listed
      }
    }
    return total;
  } catch {
    return null;
  }
}
