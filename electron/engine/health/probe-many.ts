/**
 * Probing many workstations at once (a batch just registered, `shotfarm health`): in parallel, but
 * at most PROBE_PARALLEL at a time, so 200 servers do not open 400 sockets and time each other out.
 */
import { probeInstance, type ProbeResult } from './probe.js';

export const PROBE_PARALLEL = 32;

/** fn over items with at most `limit` running at once; results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** One probe per URL, PROBE_PARALLEL at a time. */
export function probeMany(urls: readonly string[], timeoutMs: number): Promise<ProbeResult[]> {
  return mapLimited(urls, PROBE_PARALLEL, (url) => probeInstance(url, timeoutMs));
}
