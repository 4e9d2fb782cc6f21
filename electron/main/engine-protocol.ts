/**
 * The messages between the engine host (main process) and the engine process, one schema per
 * direction. Both ends validate what they receive (conventions §14): a process boundary is a trust
 * boundary even between our own processes, and a malformed message must be refused, not half-used.
 *
 *   host → engine   {id, method, input}            a contract call
 *                   {shutdown: true}               close the engine and exit
 *   engine → host   {ready: true}                  the engine is open and the scheduler started
 *                   {fatal: envelope}              the engine cannot open (it exits next)
 *                   {id, ok: true, result}         a call's answer
 *                   {id, ok: false, error}         a call's error envelope
 *                   {event, payload}               an engine event (already batched)
 */
import { z } from 'zod';
import { errorEnvelopeSchema } from '../../shared/errors.js';
import { WIRE_TOPICS, type EventMap, type WireTopic } from '../../shared/events.js';

const callId = z.number().int().nonnegative();

export const hostMessageSchema = z.union([
  z.strictObject({ id: callId, method: z.string().min(1).max(100), input: z.unknown() }),
  z.strictObject({ shutdown: z.literal(true) }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

export const engineMessageSchema = z.union([
  z.strictObject({ ready: z.literal(true) }),
  z.strictObject({ fatal: errorEnvelopeSchema }),
  z.strictObject({ id: callId, ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ id: callId, ok: z.literal(false), error: errorEnvelopeSchema }),
  // Payloads are the engine's own views; their shape is the engine's contract, checked where used.
  z.strictObject({ event: z.enum(WIRE_TOPICS), payload: z.record(z.string(), z.unknown()) }),
]);
export type EngineMessage = z.infer<typeof engineMessageSchema>;

/** A typed event message, as the engine side builds it. */
export type EventMessage = { [T in WireTopic]: { event: T; payload: EventMap[T] } }[WireTopic];
