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
