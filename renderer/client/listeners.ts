/** A small typed listener registry shared by both transports. */
import type { EventMap, EventTopic } from '../../shared/events.js';

type AnyListener = (payload: never) => void;

export class TopicListeners {
  private readonly byTopic = new Map<EventTopic, Set<AnyListener>>();

  add<T extends EventTopic>(topic: T, fn: (payload: EventMap[T]) => void): () => void {
    let set = this.byTopic.get(topic);
    if (!set) this.byTopic.set(topic, (set = new Set()));
    set.add(fn as AnyListener);
    return () => set.delete(fn as AnyListener);
  }

  emit<T extends EventTopic>(topic: T, payload: EventMap[T]): void {
    for (const fn of this.byTopic.get(topic) ?? []) {
      try {
        (fn as (p: EventMap[T]) => void)(payload);
      } catch (err) {
        console.error(`listener for ${topic} failed`, err);
      }
    }
  }
}
