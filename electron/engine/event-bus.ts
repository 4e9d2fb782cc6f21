/** Typed publish/subscribe for engine events (shared/events.ts). Transports subscribe; nothing here knows about them. */
import type { EventListener, EventMap, EventTopic } from '../../shared/events.js';

export interface ListenOptions {
  /**
   * The engine's own follower (the blocked-jobs keeper, the forecaster), not an audience: it does
   * not make `audience` true, so work done only to be shown (job views of another engine's
   * changes) is skipped while no client or host listens.
   */
  internal?: boolean;
}

export class EventBus {
  private readonly listeners = new Map<EventTopic, Set<(payload: never) => void>>();
  /** Per topic, how many listeners are not internal. */
  private readonly audiences = new Map<EventTopic, number>();

  /** Where a failing subscriber is reported; it never reaches the publisher. */
  constructor(private readonly onError: (topic: EventTopic, err: unknown) => void = () => undefined) {}

  on<T extends EventTopic>(topic: T, listener: EventListener<T>, opts: ListenOptions = {}): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    // The same function twice is one listener (a Set), counted once.
    const l = listener as (payload: never) => void;
    if (set.has(l)) return () => undefined;
    set.add(l);
    const counted = !opts.internal;
    if (counted) this.audiences.set(topic, (this.audiences.get(topic) ?? 0) + 1);
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      set.delete(l);
      if (counted) this.audiences.set(topic, (this.audiences.get(topic) ?? 1) - 1);
    };
  }

  /** Whether anyone but the engine's own followers listens to this topic (a client, a host, the CLI). */
  audience(topic: EventTopic): boolean {
    return (this.audiences.get(topic) ?? 0) > 0;
  }

  emit<T extends EventTopic>(topic: T, payload: EventMap[T]): void {
    const set = this.listeners.get(topic);
    if (!set) return;
    for (const l of set) {
      try {
        (l as EventListener<T>)(payload);
      } catch (err) {
        // A failing subscriber (a closed socket, a buggy view) must never break the engine.
        this.onError(topic, err);
      }
    }
  }
}
