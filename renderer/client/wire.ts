/**
 * Validation of what arrives from the server: HTTP answers and WebSocket batches. The answer and
 * error envelope schemas are the contract's own (shared/errors.ts), the topics its wire topics
 * (shared/events.ts); the payloads are the engine's views, of which only what the store keys on is
 * checked here, so a broken or foreign message is refused instead of corrupting the store.
 */
import { z } from 'zod';
import { callAnswerSchema, errorEnvelope, type ErrorEnvelope } from '../../shared/errors.js';
import { isWireTopic, WIRE_TOPICS, type WireTopic } from '../../shared/events.js';

export const callAnswer = callAnswerSchema;

const object = z.record(z.string(), z.unknown());
const withId = object.and(z.object({ id: z.string() }));

/** Per wire topic, the part of its payload the store relies on (keyed by the one topic list's type). */
const PAYLOADS = {
  'job.changed': z.object({ job: withId }),
  'job.progress': z.object({ jobId: z.string(), progress: object }),
  'jobs.bulkChanged': z.object({ count: z.number() }),
  // Drawn as a bar as it is: every field checked.
  'import.progress': z.object({
    progressId: z.string(),
    phase: z.enum(['checking', 'writing', 'done']),
    done: z.number().int().min(0),
    total: z.number().int().min(0),
    counts: z.object({
      new: z.number().int().min(0),
      duplicate: z.number().int().min(0),
      error: z.number().int().min(0),
    }),
  }),
  'instance.changed': z.object({ instance: withId }),
  'instance.removed': z.object({ id: z.string() }),
  'farm.changed': z.object({ farm: object }),
  'people.changed': z.object({ at: z.number() }),
  'forecast.changed': z.object({ forecast: z.object({ at: z.number(), groups: z.array(object) }).and(object) }),
  'forecast.late': z.object({ group: z.object({ key: z.string() }).and(object) }),
} satisfies Record<WireTopic, z.ZodType>;

const eventSchema = z.union(
  WIRE_TOPICS.map((topic) => z.object({ topic: z.literal(topic), payload: PAYLOADS[topic] })),
);

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

export const isTopic = isWireTopic;

export function transportError(message: string, retryable = true): ErrorEnvelope {
  return errorEnvelope('unavailable', message, retryable);
}
