/** Typed publish/subscribe for engine events (shared/events.ts). Transports subscribe; nothing here knows about them. */
import type { EventListener, EventMap, EventTopic } from '../../shared/events.js';

export class EventBus {
  private readonly listeners = new Map<EventTopic, Set<(payload: never) => void>>();

  /** Where a failing subscriber is reported; it never reaches the publisher. */
  constructor(private readonly onError: (topic: EventTopic, err: unknown) => void = () => undefined) {}

  on<T extends EventTopic>(topic: T, listener: EventListener<T>): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
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
