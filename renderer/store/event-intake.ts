/**
 * Collects events from the client and hands them to the store in batches, at most one batch per
 * `intervalMs`. The server already batches, but the desktop transport delivers one by one: this
 * keeps the renderer at ≤ 10 store updates (renders) a second whatever the transport.
 */
import { WIRE_TOPICS } from '../../shared/events.js';
import type { ShotfarmClient } from '../client/client.js';
import type { LiveEvent } from './reducers.js';

export function startEventIntake(
  client: ShotfarmClient,
  apply: (batch: LiveEvent[]) => void,
  intervalMs = 100,
): () => void {
  let pending: LiveEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = 0;
  const flush = () => {
    timer = null;
    last = Date.now();
    const batch = pending;
    pending = [];
    if (batch.length) apply(batch);
  };
  // Every topic the engine sends out (shared/events.ts), each applied by the store's reducers.
  const offs = WIRE_TOPICS.map((topic) =>
    client.subscribe(topic, (payload) => {
      pending.push({ topic, payload } as LiveEvent);
      if (timer === null) timer = setTimeout(flush, Math.max(0, last + intervalMs - Date.now()));
    }),
  );
  return () => {
    for (const off of offs) off();
    if (timer) clearTimeout(timer);
  };
}
