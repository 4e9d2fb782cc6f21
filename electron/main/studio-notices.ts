/**
 * Desktop notifications in studio mode: the main process follows the farm's event socket itself
 * (the page's socket is the page's) and shows the same notices as on "This computer" (a rush shot
 * rendered, a shot failed for good) — only for jobs imported in this app (StudioSession records
 * them; L-a's imported_by will let this be "the signed-in person's jobs"). Reconnects with backoff.
 * The token goes in the socket's Authorization header (the `ws` package can send one; a page cannot).
 */
import WebSocket from 'ws';
import { z } from 'zod';
import { socketOrigin } from './farm-choice.js';
import type { JobNotice, JobNotifier } from './notifications.js';
import type { StudioFarm } from '../preload/channels.js';

const batch = z.object({
  type: z.literal('events'),
  events: z.array(z.object({ topic: z.string(), payload: z.unknown() })),
});

/** The notices one socket message brings, for jobs `wanted` says were imported here. */
export function studioNotices(data: string, notifier: JobNotifier, wanted: (jobId: string) => boolean): JobNotice[] {
  let parsed: ReturnType<typeof batch.safeParse>;
  try {
    parsed = batch.safeParse(JSON.parse(data));
  } catch {
    return [];
  }
  if (!parsed.success) return [];
  const out: JobNotice[] = [];
  for (const e of parsed.data.events) {
    if (e.topic !== 'job.changed') continue;
    const id = (e.payload as { job?: { id?: unknown } } | null)?.job?.id;
    if (typeof id !== 'string' || !wanted(id)) continue;
    const notice = notifier.consider(e.payload);
    if (notice) out.push(notice);
  }
  return out;
}

export function followStudioNotices(
  farm: StudioFarm,
  notifier: JobNotifier,
  wanted: (jobId: string) => boolean,
  show: (n: JobNotice) => void,
  log: (m: string) => void,
): () => void {
  let stopped = false;
  let failures = 0;
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const connect = (): void => {
    // Node's socket can send a header, so the token goes there: never in the address (a proxy logs those).
    const ws = new WebSocket(new URL('/api/events', socketOrigin(farm.origin)), {
      headers: { authorization: `Bearer ${farm.token}` },
    });
    socket = ws;
    ws.on('open', () => void (failures = 0));
    ws.on('message', (data) => {
      for (const n of studioNotices(String(data), notifier, wanted)) show(n);
    });
    ws.on('error', (err) => log(`studio farm events: ${err.message}`));
    ws.on('close', () => {
      if (stopped) return;
      timer = setTimeout(connect, Math.min(30_000, 500 * 2 ** failures++));
    });
  };
  connect();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    socket?.close();
  };
}
