/** People on a test engine and calls to a real serve as one of them (Bearer token over loopback). */
import type { ApiMethod } from '../../shared/api.js';
import type { Role } from '../../shared/people.js';
import type { Engine } from '../../electron/engine/engine.js';

/** Adds a person through the contract (as the CLI does) and returns their token. */
export async function addPerson(engine: Engine, name: string, role: Role): Promise<string> {
  return (await engine.call('users.add', { name, role })).token;
}

export interface Answer {
  status: number;
  body: { ok: boolean; result?: unknown; error?: { code: string; message: string } };
}

/** POST /api/call/<method> with a token (or none). */
export async function callAs(
  base: string,
  token: string | null,
  method: ApiMethod | string,
  input: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}/api/call/${method}`, { method: 'POST', headers, body: JSON.stringify(input) });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Three keyframe shots (sh10, sh20, sh30) of Moonfall in `episode`: a person's own jobs in the people tests. */
export const threeShotList = (episode: string): string =>
  JSON.stringify({
    project: 'Moonfall',
    episode,
    shots: [1, 2, 3].map((n) => ({
      id: `sh${n}0`,
      stage: 'keyframe',
      template: 'keyframe-img2img',
      parameters: { prompt: `shot ${n}` },
    })),
  });

/** A short-lived ticket (POST /api/ticket) for the socket or file links, asked with a token in the header. */
export async function ticketFor(base: string, token: string | null, use: 'socket' | 'files'): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}/api/ticket`, { method: 'POST', headers, body: JSON.stringify({ for: use }) });
  const body = (await res.json()) as { ticket?: string; error?: { message: string } };
  if (!res.ok || typeof body.ticket !== 'string')
    throw new Error(`no ${use} ticket: ${res.status} ${body.error?.message ?? ''}`);
  return body.ticket;
}
