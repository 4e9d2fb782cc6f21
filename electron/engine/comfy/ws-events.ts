// Parsing of ComfyUI's JSON WebSocket frames into typed messages, and the event union the
// follower emits. Pure.
import { WsDataSchemas, WsEnvelopeSchema, type KnownWsType, type WsData } from './schemas.js';
import type { PreviewFormat, PreviewMetadata } from './binary-frames.js';

/** A known ComfyUI frame, typed by its `type`. */
export type ComfyWsMessage = { [K in KnownWsType]: { type: K; data: WsData<K> } }[KnownWsType];

export type ParsedWsFrame =
  | { kind: 'known'; message: ComfyWsMessage }
  /** Custom nodes, `logs`, asset events…: legal, ignored by the follower. */
  | { kind: 'unknown'; type: string; data: unknown }
  | { kind: 'malformed'; detail: string };

export function parseWsText(text: string): ParsedWsFrame {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'malformed', detail: 'frame is not JSON' };
  }
  return parseWsFrame(raw);
}

export function parseWsFrame(raw: unknown): ParsedWsFrame {
  const env = WsEnvelopeSchema.safeParse(raw);
  if (!env.success) return { kind: 'malformed', detail: 'frame has no string `type`' };
  const { type, data } = env.data;
  if (!isKnownType(type)) return { kind: 'unknown', type, data };
  const parsed = WsDataSchemas[type].safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'malformed', detail: `${type}: ${issue?.message ?? 'invalid'} at ${issue?.path.join('.') ?? ''}` };
  }
  return { kind: 'known', message: { type, data: parsed.data } as ComfyWsMessage };
}

function isKnownType(t: string): t is KnownWsType {
  return Object.hasOwn(WsDataSchemas, t);
}

/** The prompt a frame is about, or null (status, feature_flags, the reconnect `executing` replay). */
export function promptIdOf(m: ComfyWsMessage): string | null {
  if (m.type === 'status' || m.type === 'feature_flags') return null;
  return m.data.prompt_id ?? null;
}

/**
 * Where an event was seen. `inRun` is the execution fence: true when, on this connection, the
 * server sent this prompt's `execution_start` and has not yet sent its `executing {node:null}`.
 * `execution_start` only reaches the socket whose clientId the prompt was posted with, so on the
 * connection you posted with, a prompt-scoped event with `inRun: false` belongs to another run
 * of the same prompt_id (e.g. a broadcast `execution_interrupted` of an older run). After a
 * reconnect the clientId is new, targeted events stop, and `inRun` stays false: fence with
 * /queue and /history `number` instead.
 */
export interface EventContext {
  /** 1 for the first socket, +1 per reconnect. */
  connection: number;
  clientId: string;
  inRun: boolean;
}

export type ComfyEvent = ComfyWsMessage & EventContext;

export type FollowEvent =
  | ComfyEvent
  | ({
      type: 'preview';
      format: PreviewFormat;
      bytes: Uint8Array;
      /** From type-4 frames' metadata; null for type-1 frames, which do not say whose preview it is. */
      promptId: string | null;
      metadata: PreviewMetadata | null;
    } & EventContext)
  | ({ type: 'text'; nodeId: string; text: string } & EventContext)
  /** The socket dropped. Events from now until `reconnected` are lost for good: re-poll /history. */
  | { type: 'disconnected'; reason: string; connection: number }
  /** A new socket (fresh clientId) is open. Re-poll /queue and /history: nothing is replayed. */
  | { type: 'reconnected'; clientId: string; connection: number }
  /** Gave up reconnecting; the stream ends after this. */
  | { type: 'lost'; reason: string; disconnectedForMs: number };
