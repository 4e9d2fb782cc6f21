/**
 * Short-lived tickets (docs/studio-farm.md → Tickets): what a client that holds a long-lived token
 * (the desktop app in studio mode, a browser tab of a farm without people) puts in the one kind of
 * address that cannot carry a header — the events socket and file links — instead of the token.
 * `POST /api/ticket` with `{ "for": "socket" | "files" }`, authenticated by the Authorization header
 * (or the sign-in cookie), answers a ticket bound to the caller's token.
 */
import { z } from 'zod';

export const TICKET_USES = ['socket', 'files'] as const;
export type TicketUse = (typeof TICKET_USES)[number];

/** The route that hands tickets out. */
export const TICKET_PATH = '/api/ticket';

/**
 * A socket ticket opens one events socket, once, within a minute: a reconnect asks for a new one.
 * A files ticket opens file links and CSV downloads (GET only) for five minutes, any number of
 * times — one ticket for every thumbnail of a view, since a page shows hundreds — and nothing else:
 * a copied image address is useless after five minutes and never lets anyone call the API.
 */
export const TICKET_TTL_MS: Readonly<Record<TicketUse, number>> = {
  socket: 60_000,
  files: 5 * 60_000,
};

export const ticketRequest = z.strictObject({ for: z.enum(TICKET_USES) });

export const ticketAnswer = z.strictObject({
  ticket: z.string().min(16).max(128),
  for: z.enum(TICKET_USES),
  expiresInS: z.number().int().positive(),
});
export type TicketAnswer = z.infer<typeof ticketAnswer>;
