/**
 * Every statement on `instances` (one workstation each: a ComfyUI server or a RunPod endpoint, a row
 * of its kind built once in `rowOf`): the API's edits, probes, the scheduler's health — and on `instance_node_lists`, what each one's /object_info offers (node-lists.ts makes it).
 */
import {
  normaliseApiBase,
  RUNPOD_API_BASE,
  RUNPOD_EXECUTION_TIMEOUT_S,
  type InstanceAdminState,
  type InstanceHealth,
  type InstanceKind,
  type InstanceView,
  type RunpodEndpoint,
  type VramView,
} from '../../../shared/domain.js';
import type { Db } from './database.js';
import { runningJobIds } from './job-store.js';
import { all, one, run } from './statements.js';

/** The columns every workstation has, whatever its kind. */
interface InstanceRowBase {
  id: string;
  name: string;
  url: string;
  tags_json: string;
  max_concurrency: number;
  vram_overrides_json: string;
  admin_state: InstanceAdminState;
  health: InstanceHealth;
  gpu_name: string | null;
  vram_json: string | null;
  comfy_version: string | null;
  queue_length: number | null;
  last_probe_at: number | null;
  /** When it last answered a probe; older than last_probe_at while it does not answer. */
  last_answer_at: number | null;
  last_error: string | null;
  consecutive_failures: number;
  quarantined_until: number | null;
  last_checkpoint: string | null;
  created_at: number;
  updated_at: number;
}

/** A ComfyUI server Shotfarm reaches directly on the network. */
export interface ComfyInstanceRow extends InstanceRowBase {
  kind: 'comfyui';
}

/** A RunPod serverless endpoint (migration 0008): its stored facts with their defaults applied, once, here. */
export interface RunpodInstanceRow extends InstanceRowBase {
  kind: 'runpod';
  runpod: RunpodEndpoint;
  /** The API base was chosen on the farm host, so the key may go there (migration 0009, pools/runpod/api-base.ts). */
  apiBaseLocal: boolean;
}

/** One workstation row, by kind: only a RunPod row has endpoint facts, and they are never null. */
export type InstanceRow = ComfyInstanceRow | RunpodInstanceRow;

/** The table's row as SQLite gives it: the RunPod columns are null on a ComfyUI server (and may be on an old endpoint row). */
interface StoredInstanceRow extends InstanceRowBase {
  kind: InstanceKind;
  runpod_endpoint_id: string | null;
  api_base: string | null;
  /** 1: the API base was chosen on the farm host, so the key may go there (migration 0009, cloud/api-base.ts). */
  api_base_local: number;
  price_per_hour_usd: number | null;
  execution_timeout_s: number | null;
}

/** The one place a stored row becomes its kind's row (every reader below goes through it). */
function rowOf(r: StoredInstanceRow): InstanceRow {
  const {
    runpod_endpoint_id: endpointId,
    api_base: apiBase,
    api_base_local: apiBaseLocal,
    price_per_hour_usd: price,
    execution_timeout_s: timeoutS,
    kind,
    ...base
  } = r;
  if (kind === 'comfyui') return { ...base, kind };
  return {
    ...base,
    kind,
    apiBaseLocal: apiBaseLocal === 1,
    runpod: {
      endpointId: endpointId ?? '',
      apiBase: apiBase ?? RUNPOD_API_BASE,
      pricePerHourUsd: price ?? 0,
      executionTimeoutS: timeoutS ?? RUNPOD_EXECUTION_TIMEOUT_S,
    },
  };
}

const rowsOf = (rows: StoredInstanceRow[]): InstanceRow[] => rows.map(rowOf);
const maybeRow = (r: StoredInstanceRow | undefined): InstanceRow | null => (r ? rowOf(r) : null);

const SQL_ALL = 'SELECT * FROM instances ORDER BY name';
const SQL_ALL_OF_KIND = 'SELECT * FROM instances WHERE kind = ? ORDER BY name';
const SQL_BY_ID = 'SELECT * FROM instances WHERE id = ?';
/** Looks an instance up by id or by its (unique) name, for the CLI. */
const SQL_BY_ID_OR_NAME = 'SELECT * FROM instances WHERE id = ? OR name = ?';
const SQL_INSERT = `INSERT INTO instances (id, name, url, tags_json, max_concurrency, vram_overrides_json, created_at, updated_at)
  VALUES (@id, @name, @url, @tags_json, @max_concurrency, @vram_overrides_json, @now, @now)`;
const SQL_UPDATE = `UPDATE instances SET name = @name, url = @url, tags_json = @tags_json, max_concurrency = @max_concurrency,
  vram_overrides_json = @vram_overrides_json, updated_at = @now WHERE id = @id AND kind = 'comfyui'`;
const SQL_SET_ADMIN = 'UPDATE instances SET admin_state = ?, updated_at = ? WHERE id = ?';
const SQL_DELETE = 'DELETE FROM instances WHERE id = ?';

export interface InstanceFields {
  name: string;
  url: string;
  tags?: string[] | undefined;
  maxConcurrency?: number | undefined;
  vramOverrides?: Record<string, number> | undefined;
}

/** URLs are stored without a trailing slash so "http://gpu:8188/" and "http://gpu:8188" are one. */
export function normaliseUrl(url: string): string {
  const u = new URL(url.trim());
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** Its last probe went unanswered: what the card showed of it (VRAM, queue) is no longer known. */
export function isSilent(r: Pick<InstanceRow, 'last_probe_at' | 'last_answer_at'>): boolean {
  return r.last_probe_at !== null && (r.last_answer_at === null || r.last_answer_at < r.last_probe_at);
}

/** The card of a row; `currentJobIds` when the caller knows what runs there (the running farm), else read. */
export function toInstanceView(db: Db, r: InstanceRow, currentJobIds?: readonly string[]): InstanceView {
  const silent = isSilent(r);
  return {
    ...(r.kind === 'runpod' ? { kind: r.kind, endpoint: { ...r.runpod } } : { kind: r.kind }),
    id: r.id,
    name: r.name,
    url: r.url,
    tags: JSON.parse(r.tags_json) as string[],
    maxConcurrency: r.max_concurrency,
    vramOverrides: JSON.parse(r.vram_overrides_json) as Record<string, number>,
    adminState: r.admin_state,
    health: r.health,
    gpuName: r.gpu_name,
    // The stored figures stay (a workstation that went away still says whether it could ever take a job); the card shows them only while it answers.
    vram: r.vram_json && !silent ? (JSON.parse(r.vram_json) as VramView) : null,
    comfyVersion: r.comfy_version,
    queueLength: silent ? null : r.queue_length,
    currentJobIds: currentJobIds ? [...currentJobIds] : runningJobIds(db, r.id),
    lastProbeAt: r.last_probe_at,
    lastAnswerAt: r.last_answer_at,
    lastError: r.last_error,
    quarantinedUntil: r.quarantined_until,
    createdAt: r.created_at,
  };
}

export function listInstanceRows(db: Db): InstanceRow[] {
  return rowsOf(all<StoredInstanceRow>(db, SQL_ALL));
}

/** The ComfyUI servers: what the LAN registry probes. */
export function comfyInstanceRows(db: Db): ComfyInstanceRow[] {
  return rowsOf(all<StoredInstanceRow>(db, SQL_ALL_OF_KIND, 'comfyui')).filter(
    (r): r is ComfyInstanceRow => r.kind === 'comfyui',
  );
}

/** The RunPod endpoints: what the RunPod pool follows. */
/** Every LAN ComfyUI workstation's id (what several engines lease among themselves). */
/** The workstations leased among the engines of a PostgreSQL farm (LAN ComfyUI and RunPod endpoints), by name. */
export function leasedWorkstations(db: Db): { id: string; kind: string }[] {
  return all<{ id: string; kind: string }>(
    db,
    "SELECT id, kind FROM instances WHERE kind IN ('comfyui', 'runpod') ORDER BY name",
  );
}

export function runpodInstanceRows(db: Db): RunpodInstanceRow[] {
  return rowsOf(all<StoredInstanceRow>(db, SQL_ALL_OF_KIND, 'runpod')).filter(
    (r): r is RunpodInstanceRow => r.kind === 'runpod',
  );
}

/** What the contract gives for a RunPod endpoint, unset fields left out (their defaults are applied here). */
export interface RunpodFields {
  name: string;
  endpointId: string;
  apiBase?: string | undefined;
  /** The base was chosen on the farm host (pools/runpod/api-base.ts): the key may go there. */
  apiBaseLocal?: boolean | undefined;
  tags?: string[] | undefined;
  maxConcurrency?: number | undefined;
  gpuName?: string | undefined;
  vramGb?: number | undefined;
  pricePerHourUsd: number;
  executionTimeoutS?: number | undefined;
}

/** The url a RunPod endpoint row is known by: `<api base>/<endpoint id>` (one row per endpoint). */
export function runpodUrl(apiBase: string | undefined, endpointId: string): string {
  return `${normaliseApiBase(apiBase ?? RUNPOD_API_BASE)}/${endpointId}`;
}

/** The columns insert and update write for an endpoint. */
function runpodParams(id: string, f: RunpodFields, apiBase: string, now: number) {
  const vram =
    f.vramGb === undefined
      ? null
      : JSON.stringify({
          totalBytes: f.vramGb * 1024 ** 3,
          comfyBytes: 0,
          otherBytes: 0,
          freeBytes: f.vramGb * 1024 ** 3,
        });
  return {
    id,
    name: f.name,
    url: runpodUrl(apiBase, f.endpointId),
    tags: JSON.stringify(f.tags ?? []),
    max: f.maxConcurrency ?? 1,
    gpu: f.gpuName ?? null,
    vram,
    endpoint: f.endpointId,
    base: normaliseApiBase(apiBase),
    price: f.pricePerHourUsd,
    timeout: f.executionTimeoutS ?? RUNPOD_EXECUTION_TIMEOUT_S,
    now,
  };
}

export function insertRunpodInstance(db: Db, id: string, f: RunpodFields, now: number): void {
  run(
    db,
    `INSERT INTO instances (id, name, url, tags_json, max_concurrency, vram_overrides_json, gpu_name, vram_json, kind, runpod_endpoint_id,
    api_base, api_base_local, price_per_hour_usd, execution_timeout_s, created_at, updated_at)
    VALUES (@id, @name, @url, @tags, @max, '{}', @gpu, @vram, 'runpod', @endpoint, @base, @local, @price, @timeout, @now, @now)`,
    { ...runpodParams(id, f, f.apiBase ?? RUNPOD_API_BASE, now), local: f.apiBaseLocal ? 1 : 0 },
  );
}

/**
 * An endpoint's edit (cloud.updateRunpod): the API base stays what it was (only `cloud.addRunpod`
 * names one); a field not given keeps its stored value. False when no RunPod row has that id.
 */
export function updateRunpodInstance(
  db: Db,
  row: RunpodInstanceRow,
  f: Omit<RunpodFields, 'apiBase'>,
  now: number,
): boolean {
  const kept = {
    ...f,
    tags: f.tags ?? (JSON.parse(row.tags_json) as string[]),
    maxConcurrency: f.maxConcurrency ?? row.max_concurrency,
    executionTimeoutS: f.executionTimeoutS ?? row.runpod.executionTimeoutS,
  };
  const p = runpodParams(row.id, kept, row.runpod.apiBase, now);
  return (
    run(
      db,
      `UPDATE instances SET name = @name, url = @url, tags_json = @tags, max_concurrency = @max, gpu_name = COALESCE(@gpu, gpu_name),
    vram_json = COALESCE(@vram, vram_json), runpod_endpoint_id = @endpoint, price_per_hour_usd = @price, execution_timeout_s = @timeout,
    updated_at = @now WHERE id = @id AND kind = 'runpod'`,
      p,
    ).changes === 1
  );
}

/** The cloud pool's view of an endpoint: health and the last error ("API key rejected"), no VRAM probe. */
export function setEndpointHealth(
  db: Db,
  id: string,
  health: InstanceHealth,
  error: string | null,
  answered: boolean,
  now: number,
): void {
  run(
    db,
    `UPDATE instances SET health = @health, last_error = @error, last_probe_at = @now,
    last_answer_at = CASE WHEN @answered = 1 THEN @now ELSE last_answer_at END, updated_at = @now WHERE id = @id`,
    { id, health, error, answered: answered ? 1 : 0, now },
  );
}

export function instanceRow(db: Db, id: string): InstanceRow | null {
  return maybeRow(one<StoredInstanceRow>(db, SQL_BY_ID, id));
}

export function findInstance(db: Db, idOrName: string): InstanceRow | null {
  return maybeRow(one<StoredInstanceRow>(db, SQL_BY_ID_OR_NAME, idOrName, idOrName));
}

/** The columns both insert and update write, from the contract's fields. */
function instanceParams(id: string, f: InstanceFields, now: number) {
  return {
    id,
    name: f.name,
    url: normaliseUrl(f.url),
    tags_json: JSON.stringify(f.tags ?? []),
    max_concurrency: f.maxConcurrency ?? 1,
    vram_overrides_json: JSON.stringify(f.vramOverrides ?? {}),
    now,
  };
}

export function insertInstance(db: Db, id: string, f: InstanceFields, now: number): void {
  run(db, SQL_INSERT, instanceParams(id, f, now));
}

/** A ComfyUI server's edit; an endpoint's goes through updateRunpodInstance (the handler refuses it here first). */
export function updateInstance(db: Db, id: string, f: InstanceFields, now: number): boolean {
  const params = instanceParams(id, f, now);
  const before = instanceRow(db, id);
  // Another server now: what the old one offered says nothing about it.
  if (before && before.url !== params.url) run(db, 'DELETE FROM instance_node_lists WHERE instance_id = ?', id);
  return run(db, SQL_UPDATE, params).changes === 1;
}

export function setAdminState(db: Db, id: string, state: InstanceAdminState, now: number): boolean {
  return run(db, SQL_SET_ADMIN, state, now, id).changes === 1;
}

export function deleteInstance(db: Db, id: string): boolean {
  return run(db, SQL_DELETE, id).changes === 1;
}

/** Records a one-off probe (the `health` command), so imports can check VRAM fit without a running farm. */
export function recordProbe(
  db: Db,
  id: string,
  p:
    | {
        ok: true;
        gpuName: string | null;
        vram: VramView | null;
        comfyVersion: string | null;
        queueRunning: number;
        queuePending: number;
      }
    | { ok: false; error: string },
  now: number,
): void {
  if (p.ok) {
    run(
      db,
      `UPDATE instances SET health = CASE WHEN admin_state = 'active' THEN (CASE WHEN @queue > 0 THEN 'busy' ELSE 'idle' END) ELSE health END,
      gpu_name = COALESCE(@gpu, gpu_name), vram_json = COALESCE(@vram, vram_json), comfy_version = COALESCE(@version, comfy_version),
      queue_length = @queue, last_probe_at = @now, last_answer_at = @now, last_error = NULL, updated_at = @now WHERE id = @id`,
      {
        id,
        gpu: p.gpuName,
        vram: p.vram ? JSON.stringify(p.vram) : null,
        version: p.comfyVersion,
        queue: p.queueRunning + p.queuePending,
        now,
      },
    );
  } else {
    run(
      db,
      `UPDATE instances SET health = CASE WHEN admin_state = 'active' THEN 'unhealthy' ELSE health END, last_probe_at = @now,
      last_error = @error, updated_at = @now WHERE id = @id`,
      { id, error: p.error, now },
    );
  }
}

/** What the scheduler knows of an instance at run time, as the row keeps it. */
export type RuntimeHealth = Pick<
  InstanceRow,
  | 'id'
  | 'health'
  | 'gpu_name'
  | 'vram_json'
  | 'comfy_version'
  | 'queue_length'
  | 'last_probe_at'
  | 'last_answer_at'
  | 'last_error'
  | 'consecutive_failures'
  | 'quarantined_until'
  | 'last_checkpoint'
> & { now: number };

const SQL_PERSIST = `UPDATE instances SET health = @health, gpu_name = COALESCE(@gpu_name, gpu_name), vram_json = COALESCE(@vram_json, vram_json),
  comfy_version = COALESCE(@comfy_version, comfy_version), queue_length = @queue_length, last_probe_at = @last_probe_at,
  last_answer_at = COALESCE(@last_answer_at, last_answer_at), last_error = @last_error,
  consecutive_failures = @consecutive_failures, quarantined_until = @quarantined_until, last_checkpoint = @last_checkpoint, updated_at = @now
  WHERE id = @id`;

/** Writes the scheduler's view of an instance (health, probe facts, quarantine, loaded model); returns the row as stored. */
export function persistRuntime(db: Db, h: RuntimeHealth): InstanceRow | null {
  run(db, SQL_PERSIST, h);
  return instanceRow(db, h.id);
}

// ─── Node lists (the row goes with its instance: ON DELETE CASCADE) ──────────────────────────────

export interface StoredNodeListRow {
  instance_id: string;
  sha256: string;
  nodes_json: string;
  loaded_at: number;
}

/** Writes an instance's node list unless the stored one has the same hash; true when written. */
export function saveNodeList(db: Db, instanceId: string, sha256: string, nodesJson: string, now: number): boolean {
  return (
    run(
      db,
      `INSERT INTO instance_node_lists (instance_id, sha256, nodes_json, loaded_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (instance_id) DO UPDATE SET sha256 = excluded.sha256, nodes_json = excluded.nodes_json, loaded_at = excluded.loaded_at
    WHERE instance_node_lists.sha256 <> excluded.sha256`,
      instanceId,
      sha256,
      nodesJson,
      now,
    ).changes === 1
  );
}

/** Which instances have a stored node list, and its hash (cheap: no list is read). */
export function nodeListHashes(db: Db): { instance_id: string; sha256: string }[] {
  return all<{ instance_id: string; sha256: string }>(db, 'SELECT instance_id, sha256 FROM instance_node_lists');
}

export function storedNodeList(db: Db, instanceId: string): StoredNodeListRow | null {
  return one<StoredNodeListRow>(db, 'SELECT * FROM instance_node_lists WHERE instance_id = ?', instanceId) ?? null;
}
