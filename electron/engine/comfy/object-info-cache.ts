/**
 * Node lists (/object_info) read once per content. A studio's workstations are mostly built alike,
 * so at a farm's start 200 of them send the same list: each was JSON-parsed and checked against its
 * schema again (a real list runs to megabytes), and each was a new object, so everything remembered
 * per list (capability answers, the stored form) was worked out again per workstation. Here the
 * same text gives back the same ObjectInfo object — to be read, never changed in place — and a
 * list that differs (other nodes, other models) is parsed as before.
 */
import { createHash } from 'node:crypto';
import type { ObjectInfo } from './schemas.js';

/** Distinct lists kept (most recently read first out last): a farm has a few builds, not hundreds. */
const KEPT = 16;

export class ObjectInfoCache {
  private readonly byHash = new Map<string, ObjectInfo>();
  /** Lists read, and of those parsed (not already known by their content), for tests and benchmarks. */
  readonly stats = { read: 0, parsed: 0 };

  /** The list this text holds: the one already parsed from the same text, else `parse()`'s (kept when it returns). */
  of(text: string, parse: () => ObjectInfo): ObjectInfo {
    this.stats.read++;
    // Hashing is native and linear; parsing and checking the schema is what costs.
    const key = createHash('sha256').update(text).digest('base64');
    const known = this.byHash.get(key);
    if (known) {
      this.byHash.delete(key);
      this.byHash.set(key, known);
      return known;
    }
    const info = parse();
    this.stats.parsed++;
    this.byHash.set(key, info);
    if (this.byHash.size > KEPT) this.byHash.delete(this.byHash.keys().next().value as string);
    return info;
  }
}
