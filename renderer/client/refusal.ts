/**
 * A request the farm refused for who is asking (no sign-in, a wrong or revoked token, too many wrong
 * ones from this address), told apart from every other failure: the page then shows its sign-in
 * screen with the reason instead of a "server unreachable" banner or an error toast.
 */
import type { SignInReason } from './client.js';
import { callAnswer } from './wire.js';

export interface Refusal {
  reason: Exclude<SignInReason, 'signed-out'>;
  message: string;
}

const REASONS: ReadonlySet<string> = new Set(['missing', 'unknown', 'revoked', 'slowed']);

/** The refusal an answer carries (401/429 with `details.reason`, server session-route.ts), or null. */
export function refusalOf(status: number, body: unknown): Refusal | null {
  if (status !== 401 && status !== 429) return null;
  const answer = callAnswer.safeParse(body);
  if (!answer.success || answer.data.ok) return null;
  const reason = answer.data.error.details?.reason;
  if (typeof reason !== 'string' || !REASONS.has(reason)) return null;
  return { reason: reason as Refusal['reason'], message: answer.data.error.message };
}
