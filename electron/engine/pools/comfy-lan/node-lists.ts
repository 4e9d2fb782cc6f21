/**
 * Workstations' node lists as the store keeps them. A real /object_info runs to megabytes, almost
 * all of it input specs the capability check never reads; what it does read is which node classes
 * exist and, per combo input, the values offered (checkpoints, LoRAs, samplers). So that is what is
 * stored — written when a list is loaded and differs from the stored one (by hash) — and turned
 * back into an ObjectInfo the check reads exactly as it reads a live one.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeInputSpec } from '../../comfy/capabilities.js';
import type { ObjectInfo } from '../../comfy/schemas.js';
import type { Db } from '../../store/database.js';
import { nodeListHashes, saveNodeList, storedNodeList } from '../../store/instance-store.js';
import type { KnownNodeList } from '../../views/farm-facts.js';

/** Node class → combo input → the string values offered. A class with no combo input maps to {}. */
const compactSchema = z.record(z.string(), z.record(z.string(), z.array(z.string())));
type CompactNodeList = z.infer<typeof compactSchema>;

export function compactNodeList(info: ObjectInfo): CompactNodeList {
  const out: CompactNodeList = {};
  for (const [classType, node] of Object.entries(info)) {
    const combos: Record<string, string[]> = {};
    for (const inputs of [node.input.required, node.input.optional]) {
      for (const [name, spec] of Object.entries(inputs ?? {})) {
        const decoded = decodeInputSpec(spec);
        // Only strings can match a workflow's string value; an empty combo stays (it offers nothing).
        if (decoded.kind === 'combo') combos[name] = decoded.values.filter((v): v is string => typeof v === 'string');
      }
    }
    out[classType] = combos;
  }
  return out;
}

/** The stored form as the check reads it: each combo in the classic `[[values]]` encoding. */
export function expandNodeList(compact: CompactNodeList): ObjectInfo {
  const info: ObjectInfo = {};
  for (const [classType, combos] of Object.entries(compact)) {
    info[classType] = {
      input: { required: Object.fromEntries(Object.entries(combos).map(([name, values]) => [name, [values]])) },
    };
  }
  return info;
}

/** A list's stored form and its hash (what the store compares). */
export interface StoredForm {
  json: string;
  sha256: string;
}

export function storedFormOf(info: ObjectInfo): StoredForm {
  const json = JSON.stringify(compactNodeList(info));
  return { json, sha256: createHash('sha256').update(json).digest('hex') };
}

/** Stores a freshly loaded list (its stored form: storedFormOf) unless the stored one is the same; true when it was written. */
export function storeNodeList(db: Db, instanceId: string, form: StoredForm, now: number): boolean {
  return saveNodeList(db, instanceId, form.sha256, form.json, now);
}

/**
 * The stored lists, read once per hash: the same ObjectInfo object is handed out until the stored
 * list changes, so answers remembered per node-list identity (capability-answers.ts) stay valid.
 */
export class StoredNodeLists {
  private readonly byInstance = new Map<string, { sha256: string; info: ObjectInfo | null }>();

  constructor(private readonly db: Db) {}

  /** Re-reads what changed in the store (one small query when nothing did). */
  refresh(): void {
    const hashes = new Map(nodeListHashes(this.db).map((r) => [r.instance_id, r.sha256]));
    for (const id of this.byInstance.keys()) if (!hashes.has(id)) this.byInstance.delete(id);
    for (const [id, sha256] of hashes) {
      if (this.byInstance.get(id)?.sha256 === sha256) continue;
      this.byInstance.set(id, { sha256, info: this.read(id) });
    }
  }

  /** The stored list of an instance (as of the last refresh), or null. */
  get(instanceId: string): ObjectInfo | null {
    return this.byInstance.get(instanceId)?.info ?? null;
  }

  /** The stored list's hash, for "did what we know change" (null: none stored). */
  hash(instanceId: string): string | null {
    return this.byInstance.get(instanceId)?.sha256 ?? null;
  }

  private read(instanceId: string): ObjectInfo | null {
    const row = storedNodeList(this.db, instanceId);
    if (!row) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.nodes_json);
    } catch {
      return null;
    }
    // Read back through its schema: a row written by another version, or damaged, counts as not known.
    const checked = compactSchema.safeParse(parsed);
    return checked.success ? expandNodeList(checked.data) : null;
  }
}

/**
 * The running farm's lists: each instance's live list once it is loaded in this run, else the
 * stored one. Live lists are named by identity (numbered as first seen), stored ones by hash.
 */
export class FarmNodeLists {
  private readonly stored: StoredNodeLists;
  private readonly liveIds = new WeakMap<ObjectInfo, number>();
  private nextId = 1;

  constructor(db: Db) {
    this.stored = new StoredNodeLists(db);
  }

  /** Re-reads the stored lists (at start, and when an instance was added, edited or removed). */
  refresh(): void {
    this.stored.refresh();
  }

  of(instances: readonly { id: string; live: ObjectInfo | null }[]): KnownNodeList[] {
    return instances.map(({ id, live }) => {
      if (!live) return { id, info: this.stored.get(id), token: `stored ${this.stored.hash(id) ?? '-'}` };
      let n = this.liveIds.get(live);
      if (n === undefined) {
        n = this.nextId++;
        this.liveIds.set(live, n);
      }
      return { id, info: live, token: `live ${n}` };
    });
  }
}
