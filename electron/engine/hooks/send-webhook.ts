/**
 * Sends a webhook: POST the delivery's JSON. Any 2xx is success; another status, a connection
 * error or no answer before the deadline is a failed try. Messages name only the URL's origin:
 * webhook paths often carry the token (Slack, Teams, Discord), and these messages are stored and
 * shown in the UI.
 */
import { request } from 'undici';
import type { WebhookHook } from '../../../shared/hooks.js';
import type { SendContext } from './send-command.js';

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  return code;
}

export async function sendWebhook(hook: WebhookHook, ctx: SendContext): Promise<void> {
  const origin = new URL(hook.url).origin;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(hook.url, {
      method: 'POST',
      body: ctx.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Shotfarm',
        'x-shotfarm-event': ctx.event,
        'x-shotfarm-delivery': String(ctx.deliveryId),
      },
      signal: ctx.signal,
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.timeoutMs,
    });
  } catch (err) {
    if (ctx.signal.aborted) {
      throw new Error(
        ctx.timedOut()
          ? `${origin} did not answer within ${ctx.timeoutMs / 1000} s.`
          : `The request to ${origin} was stopped (Shotfarm is closing).`,
      );
    }
    const code = errorCode(err);
    if (code === 'ECONNREFUSED') throw new Error(`${origin} refused the connection (nothing listening there?).`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new Error(`${origin}: the host name does not resolve.`);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
      throw new Error(`${origin} did not answer within ${ctx.timeoutMs / 1000} s.`);
    throw new Error(`The request to ${origin} failed: ${code ?? (err as Error).message}.`);
  }
  let text = '';
  try {
    text = await res.body.text();
  } catch {
    // The status is what counts; an answer body cut short does not change it.
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return;
  const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  throw new Error(`${origin} answered HTTP ${res.statusCode}${snippet ? `: ${snippet}` : '.'}`);
}
