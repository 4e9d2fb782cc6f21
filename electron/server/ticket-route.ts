/**
 * `POST /api/ticket` `{ "for": "socket" | "files" }`: a short-lived ticket for the caller's token
 * (shared/tickets.ts, ticket-book.ts). The caller has already passed the header or cookie check
 * (server.ts: a ticket is not accepted here — one leaked file link must not buy itself a successor).
 * The ticket is in the answer only — never in a log line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ticketRequest, type TicketAnswer } from '../../shared/tickets.js';
import { BodyTooLarge, envelope, readBody, sendError, sendJson } from '../engine/hosting/http-util.js';
import type { TicketBook } from './ticket-book.js';

export async function handleTicket(
  req: IncomingMessage,
  res: ServerResponse,
  tickets: TicketBook,
  token: string | null,
): Promise<void> {
  if (req.method !== 'POST') return sendError(res, 405, envelope('bad_input', 'Ask for a ticket with POST.'));
  let text: string;
  try {
    text = await readBody(req, 1_024);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      return sendError(res, 413, envelope('bad_input', 'A ticket request is {"for": "socket" | "files"}.'));
    throw err;
  }
  let parsed: ReturnType<typeof ticketRequest.safeParse>;
  try {
    parsed = ticketRequest.safeParse(JSON.parse(text));
  } catch {
    parsed = ticketRequest.safeParse(null);
  }
  if (!parsed.success)
    return sendError(
      res,
      400,
      envelope(
        'bad_input',
        'A ticket request is {"for": "socket"} (opens the events socket once) or {"for": "files"} (file links and downloads, a few minutes).',
      ),
    );
  const issued = tickets.issue(parsed.data.for, token);
  const answer: TicketAnswer = { ticket: issued.ticket, for: parsed.data.for, expiresInS: issued.expiresInS };
  sendJson(res, 200, answer);
}
