/**
 * Validation of what arrives from the server: HTTP answers and WebSocket batches. The payloads
 * themselves are the engine's views; here we check the envelope shapes so a broken or foreign
 * message is refused instead of corrupting the store.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorEnvelope } from '../../shared/errors.js';
import type { EventTopic } from '../../shared/events.js';

const TOPICS = ['job.changed', 'job.progress', 'jobs.bulkChanged', 'instance.changed', 'instance.removed', 'hook.delivery'] as const satisfies readonly EventTopic[];

const envelopeSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const callAnswer = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: envelopeSchema }),
]);

const object = z.record(z.string(), z.unknown());
const eventSchema = z.discriminatedUnion('topic', [
  z.object({ topic: z.literal('job.changed'), payload: z.object({ job: object.and(z.object({ id: z.string() })) }) }),
  z.object({ topic: z.literal('job.progress'), payload: z.object({ jobId: z.string(), progress: object }) }),
  z.object({ topic: z.literal('jobs.bulkChanged'), payload: z.object({ count: z.number() }) }),
  z.object({ topic: z.literal('instance.changed'), payload: z.object({ instance: object.and(z.object({ id: z.string() })) }) }),
  z.object({ topic: z.literal('instance.removed'), payload: z.object({ id: z.string() }) }),
  z.object({ topic: z.literal('hook.delivery'), payload: z.object({ delivery: object }) }),
]);

export const serverMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello') }),
  z.object({ type: z.literal('pong') }),
  z.object({ type: z.literal('events'), events: z.array(eventSchema) }),
]);

export const infoSchema = z.object({
  name: z.string(),
  demoLabel: z.string().nullable(),
  tokenRequired: z.boolean(),
  exportDir: z.string().nullable(),
});

export function isTopic(t: unknown): t is EventTopic {
  return typeof t === 'string' && (TOPICS as readonly string[]).includes(t);
}

export function transportError(message: string, retryable = true): ErrorEnvelope {
  return { code: 'unavailable', message, retryable };
}
