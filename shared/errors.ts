/**
 * The one error shape across the contract (conventions §11): `message` is written for the
 * operator; `code` is for programs; `retryable` says whether trying the same call again may work.
 */
export const ERROR_CODES = [
  'bad_input', // the caller sent something malformed or invalid
  'not_found',
  'conflict', // e.g. an illegal state transition, a duplicate name
  'unavailable', // a workstation or the store cannot be reached right now
  'storage', // disk full, database locked or corrupt
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
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
