/**
 * Events the engine publishes, with their payloads (EventMap), and every topic once (EVENT_TOPICS)
 * with where it may go. The renderer never polls: its store is written by the `wire` topics, which
 * the headless server's WebSocket and the desktop's IPC relay, batched (at most ~10 deliveries a
 * second). Every list of topics elsewhere is derived from this one.
 */
import type { HookDeliveryView, ImportProgress, InstanceView, JobProgress, JobView } from './domain.js';
import type { FarmStateView } from './farm-settings.js';
import type { ForecastGroup, ForecastView } from './forecast.js';

export interface EventMap {
  /** A job row changed (state, priority, order, attempt). */
  'job.changed': { job: JobView };
  /** Progress of a running job; frequent, so it carries only what changed. */
  'job.progress': { jobId: string; progress: JobProgress };
  /** Many jobs changed at once (an import, a bulk action): clients refetch what they show. */
  'jobs.bulkChanged': { count: number };
  /**
   * How far an import is, for the caller that gave its `progressId` (a token it chose: the event
   * carries counts only, never a row, a name or who imports).
   */
  'import.progress': ImportProgress;
  'instance.changed': { instance: InstanceView };
  'instance.removed': { id: string };
  /** The farm's durable state changed (running, paused, stopped) and the farm here acts on it. */
  'farm.changed': { farm: FarmStateView };
  /** A hook delivery finished (delivered, or failed for good after its retries). */
  'hook.delivery': { delivery: HookDeliveryView };
  /**
   * Someone was added, given a role or a new token, or revoked (Settings → People, or `shotfarm
   * users` through the running farm): admins' People panels refetch `users.list` (which only the
   * people class may call), and every page asks `session.whoami` again. It says only when — never
   * who, and never a token or its hash: every page on the LAN receives it.
   */
  'people.changed': { at: number };
  /** The forecast was recomputed (docs/forecast.md): the Forecast panel shows it. */
  'forecast.changed': { forecast: ForecastView };
  /** A group's forecast passed its due time: sent once per turn late (not at every recompute, not after a restart). */
  'forecast.late': { group: ForecastGroup };
}

export type EventTopic = keyof EventMap;
export type EventListener<T extends EventTopic> = (payload: EventMap[T]) => void;

/**
 * Every topic and where it goes: `wire` topics leave the engine (WebSocket, IPC); `engine` topics
 * stay in its process. `hook.delivery` is engine-internal: no view shows deliveries (the operator
 * lists them with `shotfarm hooks deliveries`), and hooks are this machine's business only — their
 * ids and errors (which may name a webhook's host) are not for every page on the LAN.
 */
export const EVENT_TOPICS = {
  'job.changed': 'wire',
  'job.progress': 'wire',
  'jobs.bulkChanged': 'wire',
  'import.progress': 'wire',
  'instance.changed': 'wire',
  'instance.removed': 'wire',
  'farm.changed': 'wire',
  'hook.delivery': 'engine',
  'people.changed': 'wire',
  'forecast.changed': 'wire',
  'forecast.late': 'wire',
} as const satisfies Record<EventTopic, 'wire' | 'engine'>;

/** The topics clients receive. */
export type WireTopic = { [T in EventTopic]: (typeof EVENT_TOPICS)[T] extends 'wire' ? T : never }[EventTopic];

export const WIRE_TOPICS: readonly WireTopic[] = (Object.keys(EVENT_TOPICS) as EventTopic[]).filter(
  (t): t is WireTopic => EVENT_TOPICS[t] === 'wire',
);

export function isWireTopic(t: unknown): t is WireTopic {
  return typeof t === 'string' && (WIRE_TOPICS as readonly string[]).includes(t);
}

/** One event as the transports carry it. */
export type WireEvent = { [T in WireTopic]: { topic: T; payload: EventMap[T] } }[WireTopic];
