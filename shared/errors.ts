/**
 * The one error shape across the contract (conventions §11): `message` is written for the
 * operator; `code` is for programs; `retryable` says whether trying the same call again may work.
 * Its schema is here once: the engine process's messages, the preload bridge and the renderer's
 * transports all check what arrives with it.
 */
import { z } from 'zod';

export const ERROR_CODES = [
  'bad_input', // the caller sent something malformed or invalid
  'not_found',
  'conflict', // e.g. an illegal state transition, a duplicate name
  'unavailable', // a workstation or the store cannot be reached right now
  'storage', // disk full, database locked or corrupt
  'internal',
  'unauthorized', // no personal token, or a wrong or revoked one (HTTP 401)
  'forbidden', // the caller's role may not do this (HTTP 403); the message is the policy's sentence
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorEnvelopeSchema = z.strictObject({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/**
 * What a call answers across a transport (an HTTP body, an IPC value): its result, or the envelope.
 * A shell action with nothing to return (reveal a file) answers `{ok: true}` alone.
 */
export const callAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), result: z.unknown().optional() }),
  z.strictObject({ ok: z.literal(false), error: errorEnvelopeSchema }),
]);
export type CallAnswer = z.infer<typeof callAnswerSchema>;

/**
 * A call's answer as a Node client of the contract takes it (the CLI reaching a running farm, the
 * desktop reaching a studio farm): the result, or the engine's error rethrown whole — code,
 * message, retryable and details. `unexpected` words an answer that is not the contract's.
 */
export function resultOfAnswer(body: unknown, unexpected: () => ShotfarmError): unknown {
  const answer = callAnswerSchema.safeParse(body);
  if (!answer.success) throw unexpected();
  if (answer.data.ok) return answer.data.result;
  const e = answer.data.error;
  throw new ShotfarmError(e.code, e.message, { retryable: e.retryable, ...(e.details ? { details: e.details } : {}) });
}

/** An envelope made on the spot (a transport refusing a request before the engine sees it). */
export function errorEnvelope(code: ErrorCode, message: string, retryable = false): ErrorEnvelope {
  return { code, message, retryable };
}

/** Thrown by the engine; crosses transports as its `envelope`. */
export class ShotfarmError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: { retryable?: boolean; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'ShotfarmError';
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }

  get envelope(): ErrorEnvelope {
    const env: ErrorEnvelope = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details) env.details = this.details;
    return env;
  }
}

/** Turns anything thrown into the envelope; unknown errors keep their message but say "internal". */
export function toErrorEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof ShotfarmError) return err.envelope;
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message, retryable: false };
}
