/**
 * Job ids are UUIDv5 of project/episode/shot/stage/take (SPEC §2): importing the same list twice
 * yields the same ids (nothing new is created), and a new take is a new id. The id is also the
 * ComfyUI prompt_id of every attempt, so any attempt can find its prompt on a server.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { TakeKey } from '../../shared/take-key.js';

/** Fixed namespace for Shotfarm job ids. Never change it: every stored id depends on it. */
export const JOB_ID_NAMESPACE = '6f1c1b0e-3d4a-5c2e-9b7f-5a8e2d4c1f30';

export function jobId(key: TakeKey): string {
  // A separator that cannot occur in names (names reject control characters).
  const name = [key.project, key.episode, key.shot, key.stage, String(key.take)].join('\u001f');
  return uuidV5(name);
}

const NAMESPACE_BYTES = Buffer.from(JOB_ID_NAMESPACE.replace(/-/g, ''), 'hex');

/**
 * RFC 4122 version 5 (SHA-1, namespace + UTF-8 name), as the `uuid` package computes it; written
 * out because a 100k-row import derives each id twice and the package's version was a tenth of it.
 */
export function uuidV5(name: string): string {
  const h = createHash('sha1').update(NAMESPACE_BYTES).update(name, 'utf8').digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.toString('hex', 0, 16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Random ids for attempts, assets, previews and instances. */
export function randomId(): string {
  return randomUUID();
}
