/**
 * Job ids are UUIDv5 of project/episode/shot/stage/take (SPEC §2): importing the same list twice
 * yields the same ids (nothing new is created), and a new take is a new id. The id is also the
 * ComfyUI prompt_id of every attempt, so any attempt can find its prompt on a server.
 */
import { hash, randomUUID } from 'node:crypto';
import type { TakeKey } from '../../shared/take-key.js';

/** Fixed namespace for Shotfarm job ids. Never change it: every stored id depends on it. */
export const JOB_ID_NAMESPACE = '6f1c1b0e-3d4a-5c2e-9b7f-5a8e2d4c1f30';

export function jobId(key: TakeKey): string {
  // A separator that cannot occur in names (names reject control characters).
  const name = [key.project, key.episode, key.shot, key.stage, String(key.take)].join('\u001f');
  return uuidV5(name);
}

const NAMESPACE_BYTES = Buffer.from(JOB_ID_NAMESPACE.replace(/-/g, ''), 'hex');

/** The namespace's bytes, then room for a name: each id hashes one slice of it, no buffer per id. */
const SCRATCH = Buffer.alloc(16 + 1024);
NAMESPACE_BYTES.copy(SCRATCH, 0);
/** The hex digits as bytes, and the 36 bytes one id is formatted into. */
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const OUT = Buffer.alloc(36);

/**
 * RFC 4122 version 5 (SHA-1, namespace + UTF-8 name), as the `uuid` package computes it; written
 * out because a 100k-row import derives each id and the package's version was a tenth of it. One
 * call of `crypto.hash` per id (no Hash object), the version and variant bits set in the digest,
 * and the id formatted into bytes and read as ONE string: an id put together from slices of the
 * hex digest is a rope of nine pieces that V8 copies into one string the first time it is hashed
 * (the preview's duplicate map) or bound to a statement.
 */
export function uuidV5(name: string): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: a name that surely fits is written into the scratch.
  const data =
    name.length * 3 <= SCRATCH.length - 16
      ? SCRATCH.subarray(0, 16 + SCRATCH.write(name, 16, 'utf8'))
      : Buffer.concat([NAMESPACE_BYTES, Buffer.from(name, 'utf8')]);
  const d = hash('sha1', data, 'buffer') as Buffer;
  // Byte 6's high nibble is the version (5); byte 8's top two bits are the variant (10).
  d[6] = ((d[6] as number) & 0x0f) | 0x50;
  d[8] = ((d[8] as number) & 0x3f) | 0x80;
  let o = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) OUT[o++] = 0x2d; // -
    const b = d[i] as number;
    OUT[o++] = HEX[b >> 4] as number;
    OUT[o++] = HEX[b & 0x0f] as number;
  }
  return OUT.toString('latin1', 0, 36);
}

/** Random ids for attempts, assets, previews and instances. */
export function randomId(): string {
  return randomUUID();
}
