/**
 * Tickets for a client that holds a long-lived token (the desktop app in studio mode, a tab of a
 * farm without people): the events socket and file links cannot carry a header, so they carry a
 * short-lived ticket the farm hands out for the token (shared/tickets.ts) — never the token itself.
 * A socket ticket is asked for at each (re)connect; one files ticket is kept for all the page's
 * thumbnails and downloads and renewed well before it ends, so a link built now stays good for
 * minutes while a copied one soon is not.
 */
import { TICKET_PATH, TICKET_TTL_MS, ticketAnswer, type TicketUse } from '../../shared/tickets.js';

const ASK_TIMEOUT_MS = 5_000;

/** A fresh ticket, or null when the farm cannot give one now (unreachable, refused): the caller tries again later. */
export async function fetchTicket(base: URL, token: string, use: TicketUse): Promise<string | null> {
  try {
    const res = await fetch(new URL(TICKET_PATH, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ for: use }),
      // A farm that does not answer must not hold the page's start (it waits for the first files ticket).
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const answer = ticketAnswer.safeParse(await res.json());
    return answer.success && answer.data.for === use ? answer.data.ticket : null;
  } catch {
    return null;
  }
}

/** Renewed when 2 of its 5 minutes are gone: a link built from the current ticket has 3 left. */
const RENEW_MS = Math.round(TICKET_TTL_MS.files * 0.4);
const RETRY_MS = 10_000;

export interface FileTickets {
  /** The ticket for file links now; null until the first one arrived (or while the farm gives none). */
  current(): string | null;
  /** Settles once the first ask is answered, either way. */
  readonly ready: Promise<void>;
  close(): void;
}

export function keepFileTickets(base: URL, token: string): FileTickets {
  let ticket: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  const renew = async (): Promise<void> => {
    const next = await fetchTicket(base, token, 'files');
    if (closed) return;
    if (next !== null) ticket = next;
    timer = setTimeout(() => void renew(), next === null ? RETRY_MS : RENEW_MS);
  };
  const ready = renew();
  return {
    current: () => ticket,
    ready,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
