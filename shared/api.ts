/**
 * The API contract: one map from method name to input schema and output type. The engine
 * implements it; in-process calls, the CLI, HTTP/WebSocket and Electron IPC are only transports.
 * Every transport validates the input with `API_INPUTS[method]` before the engine sees it.
 */
import type { ForecastView } from './forecast.js';
import { z } from 'zod';
import { JOB_STATES } from './job-states.js';
import { PRIORITIES } from './priorities.js';
import { nameSchema, portableNameSchema } from './shot-list-schema.js';
import { DELIVERY_STATUSES, hookSchema, hooksSchema, type HookConfig } from './hooks.js';
import { s3SettingsSchema, type StorageView } from './storage.js';
import {
  farmControlInputSchema,
  farmSettingKeySchema,
  farmStopInputSchema,
  isFarmSettingKey,
  parseSettingValue,
  rawSettingValueSchema,
  type FarmSettingView,
} from './farm-settings.js';
import { exportFilterSchema } from './exports.js';
import { httpUrlSchema } from './url.js';
import { pinInputSchema, type FarmEngines } from './engines.js';
import { ASSET_ID_PATTERN, RUNPOD_API_BASE } from './domain.js';
import type {
  CloudSpend,
  RunpodTestView,
  AssetFileAnswer,
  AssetPage,
  AttemptView,
  ExportResult,
  FailureGroup,
  FreezeResult,
  HookDeliveryView,
  TimelineView,
  VerifyReport,
  FarmStatus,
  ImportPreview,
  ImportPreviewRows,
  ImportResult,
  InstanceView,
  ProbeReport,
  ConnectionTestView,
  JobPage,
  JobView,
  JobWhy,
  JobDetail,
  JobFacets,
  JobPreview,
  TemplateView,
} from './domain.js';
import { FACET_FIELDS } from './job-facets.js';
import {
  personNameSchema,
  roleSchema,
  type Caller,
  type IssuedToken,
  type PersonView,
  type SessionView,
} from './people.js';
import { importUploadsSchema, uploadsCheckInput, type UploadsCheck } from './uploads.js';
import { MAX_BATCH, type WorkstationBatchResult } from './workstation-batch.js';
import type { TemplateRunTimeView } from './template-run-time.js';
import type { TemplateHistoryView } from './template-history.js';
import { VRAM_PINS, type TemplateVramView } from './vram-need.js';

const jobIds = z.array(z.uuid()).min(1).max(100_000);
/** A caller's token for an import's progress events: short, plain characters (it goes on the wire as given). */
/** The most preview rows one answer carries when the caller pages (import.preview firstRows, import.previewRows). */
export const PREVIEW_PAGE_MAX = 1_000;
const importProgressId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _ (at most 64)');

const csvMapping = z
  .strictObject({
    project: portableNameSchema('project').optional(),
    episode: portableNameSchema('episode').optional(),
    stage: portableNameSchema('stage').optional(),
    template: nameSchema.optional(),
    priority: z.enum(PRIORITIES).optional(),
    /** Template parameter name → CSV column (display name or canonical field). */
    parameters: z.record(z.string(), z.string()).optional(),
  })
  .optional();

export const jobFilterSchema = z.strictObject({
  states: z.array(z.enum(JOB_STATES)).optional(),
  /** Exact names (the CLI's --project, a group picked in the queue's tree). */
  project: z.string().optional(),
  episode: z.string().optional(),
  /** The shot code's part before its first `_` (sequenceOf in shared/job-detail.ts). */
  sequence: z.string().optional(),
  shot: z.string().optional(),
  stage: z.string().optional(),
  /** Names starting with this, ignoring case (what an operator types in the queue's filters). */
  projectPrefix: z.string().max(200).optional(),
  episodePrefix: z.string().max(200).optional(),
  shotPrefix: z.string().max(200).optional(),
  priority: z.enum(PRIORITIES).optional(),
  instanceId: z.string().optional(),
  /** Jobs this person imported (the queue's "Mine": the signed-in person's name). */
  importedBy: z.string().max(64).optional(),
  /** Queued jobs no registered workstation could ever take (JobView.blocked). */
  blocked: z.boolean().optional(),
  /** Free text matched against shot, stage, template, reason. */
  search: z.string().max(200).optional(),
});
export type JobFilter = z.infer<typeof jobFilterSchema>;

export const JOB_SORT_KEYS = ['queue', 'shot', 'stage', 'state', 'priority', 'updated', 'enqueued'] as const;

/** An export written to a file: where, and what to include (shared/exports.ts). */
const exportFilter = exportFilterSchema.extend({ path: z.string().min(1) });

const urlSchema = httpUrlSchema('http://gpu-01:8188');

const instanceFields = {
  name: nameSchema,
  url: urlSchema,
  tags: z.array(z.string().trim().min(1)).optional(),
  maxConcurrency: z.number().int().min(1).max(16).optional(),
  vramOverrides: z.record(z.string(), z.number().positive()).optional(),
};

/** One workstation of a batch: the same fields, the name optional (made from the host), and where it came from. */
const batchItem = z.strictObject({
  ...instanceFields,
  name: nameSchema.optional(),
  source: z.string().trim().min(1).max(300),
});

/** settings.set: the key must be a farm setting, the value fit its type and bounds (the engine checks folders). */
const settingsSetInput = z
  .strictObject({ key: farmSettingKeySchema, value: rawSettingValueSchema })
  .superRefine((input, ctx) => {
    // zod runs this even when the key failed its own check (that issue is reported already).
    if (!isFarmSettingKey(input.key)) return;
    const parsed = parseSettingValue(input.key, input.value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['value'], message: parsed.message });
  });

/** A RunPod endpoint's fields, as added and as edited (issue 18). */
const runpodFields = {
  name: nameSchema,
  endpointId: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{1,100}$/,
      'the endpoint id is letters, digits, - and _ (RunPod console → Serverless → your endpoint)',
    ),
  gpuName: z.string().trim().min(1).max(100).optional(),
  vramGb: z.number().positive().max(1024).optional(),
  pricePerHourUsd: z
    .number({
      error:
        "pricePerHourUsd is needed: what a GPU-hour of this endpoint costs (RunPod console → the endpoint's GPU), so costs and the daily budget mean something",
    })
    .positive()
    .max(1000),
  maxConcurrency: z.number().int().min(1).max(64).optional(),
  tags: z.array(z.string().trim().min(1)).optional(),
  executionTimeoutS: z
    .number()
    .int()
    .min(5)
    .max(7 * 86_400)
    .optional(),
};

export const API_INPUTS = {
  'farm.status': z.strictObject({}),
  /** The engines sharing a PostgreSQL farm: host, pid, version, since, workstations held, last renewal (empty on SQLite). */
  'farm.engines': z.strictObject({}),
  /**
   * The farm's durable state (it survives restarts; a farm running in another process on the same
   * data folder acts on it within one probe interval). Stop: no new dispatch; running prompts
   * interrupted and removed, their jobs requeued. Pause: no new dispatch; running prompts finish.
   */
  'farm.stop': farmStopInputSchema,
  'farm.pause': farmControlInputSchema,
  'farm.resume': farmControlInputSchema,
  'jobs.list': z.strictObject({
    filter: jobFilterSchema.optional(),
    sort: z.enum(JOB_SORT_KEYS).optional(),
    descending: z.boolean().optional(),
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
  }),
  'jobs.get': z.strictObject({ id: z.uuid() }),
  /** Every id matching a filter, in queue order (select-all in the UI), at most 100,000. */
  'jobs.ids': z.strictObject({ filter: jobFilterSchema.optional() }),
  /** Full ids for ids or unique prefixes of them, as an operator types them (the CLI). */
  'jobs.resolveIds': z.strictObject({ refs: z.array(z.string().max(200)).min(1).max(100_000) }),
  'jobs.bump': z.strictObject({ ids: jobIds, priority: z.enum(PRIORITIES) }),
  'jobs.moveToTop': z.strictObject({ ids: jobIds }),
  'jobs.hold': z.strictObject({ ids: jobIds }),
  'jobs.release': z.strictObject({ ids: jobIds }),
  'jobs.cancel': z.strictObject({ ids: jobIds }),
  'jobs.retry': z.strictObject({ ids: jobIds }),
  'jobs.newTake': z.strictObject({ ids: jobIds, pinSeed: z.boolean().optional() }),
  /**
   * Undoes a cancel (the Studio's Undo): only for jobs cancelled while no attempt of theirs ran
   * (pending, queued or held) and not changed since; each goes back to the state it was cancelled from.
   */
  'jobs.uncancel': z.strictObject({ ids: jobIds }),
  /** Puts jobs back at a priority and rank they had (undoing a bump or a move to top); jobs not waiting are left alone. */
  'jobs.restoreOrder': z.strictObject({
    jobs: z
      .array(z.strictObject({ id: z.uuid(), priority: z.enum(PRIORITIES), rank: z.number().int() }))
      .min(1)
      .max(100_000),
  }),
  'jobs.attempts': z.strictObject({ id: z.uuid() }),
  /** The drawer: shot path, template version, the prompt's resolved parameters and workflow, inputs, outputs, history. */
  'jobs.detail': z.strictObject({ id: z.uuid() }),
  /** The latest preview image of a running job's prompt; with `since` (a seq), bytes only if newer. */
  'jobs.preview': z.strictObject({ id: z.uuid(), since: z.number().int().min(0).optional() }),
  /** Matching jobs counted by one field: group counts, and suggestions of values starting with `prefix`. */
  'jobs.facets': z.strictObject({
    by: z.enum(FACET_FIELDS),
    filter: jobFilterSchema.optional(),
    prefix: z.string().max(200).optional(),
    limit: z.number().int().min(1).max(1_000).optional(),
  }),
  /** Why a job is not running: per workstation for a queued job, its dependency when pending, its backoff when retrying. */
  'jobs.why': z.strictObject({ id: z.uuid() }),
  'failures.list': z.strictObject({ limitPerGroup: z.number().int().min(1).max(10_000).optional() }),
  'timeline.get': z.strictObject({ from: z.number().int(), to: z.number().int() }),
  /** The forecast per project, episode and sequence (docs/forecast.md): the kept one, recomputed as the farm runs. */
  'forecast.get': z.strictObject({}),
  'assets.list': z.strictObject({
    project: z.string().optional(),
    episode: z.string().optional(),
    shot: z.string().optional(),
    stage: z.string().optional(),
    search: z.string().max(200).optional(),
    /** Only outputs stored up to this ledger position (an earlier answer's `position`): the grid holds still while new ones arrive. */
    upTo: z.number().int().min(0).optional(),
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
  }),
  'assets.approve': z.strictObject({ ids: z.array(z.string().min(1)).min(1).max(100_000), approved: z.boolean() }),
  /** The file to serve for a ledger id (both hosts serve assets through this). */
  'assets.file': z.strictObject({ id: z.string().regex(ASSET_ID_PATTERN) }),
  'import.preview': z.strictObject({
    fileName: z.string().min(1),
    content: z.string().max(256 * 1024 * 1024),
    /** Folder that relative input paths are resolved against. */
    baseDir: z.string().optional(),
    mapping: csvMapping,
    /** Input files sent with the list (a browser or studio-mode import): input name as written → uploaded SHA-256 (shared/uploads.ts). */
    uploads: importUploadsSchema.optional(),
    /** When the list's jobs should be done, unless a row says (shared/forecast.ts parseDue: "2026-12-05T09:00"). */
    due: z.string().max(64).optional(),
    /** A token of the caller's: the preview's `import.progress` events carry it (shared/events.ts). */
    progressId: importProgressId.optional(),
    /**
     * Send only this many rows (errors first, then in file order) and the counts; the rest is
     * fetched a page at a time with import.previewRows. Without it every row comes back.
     */
    firstRows: z.number().int().min(0).max(PREVIEW_PAGE_MAX).optional(),
  }),
  /** A page of a kept preview's rows, errors first, then in file order (as `firstRows` sends the first). */
  'import.previewRows': z.strictObject({
    previewId: z.string().min(1),
    offset: z.number().int().min(0),
    limit: z.number().int().min(1).max(PREVIEW_PAGE_MAX),
  }),
  'import.commit': z.strictObject({ previewId: z.string().min(1), progressId: importProgressId.optional() }),
  'templates.list': z.strictObject({}),
  /** A template's declared and learned VRAM per GPU model (its latest version). */
  'templates.vram': z.strictObject({ name: z.string().min(1).max(200) }),
  /** What the farm learned of a template's run time per GPU model (its latest version): median, p90, cold starts. */
  'templates.runTimes': z.strictObject({ name: z.string().min(1).max(200) }),
  /** A template's measured runs for the Templates view's plots (its latest version): the newest 500 of each kind, with their totals. */
  'templates.history': z.strictObject({ name: z.string().min(1).max(200) }),
  /** Pins a template's VRAM to its declared or learned number; `auto` learns again. */
  'templates.pinVram': z.strictObject({ name: z.string().min(1).max(200), pin: z.enum(VRAM_PINS) }),
  /** Registers a template file (a new version when it changed); `dryRun` only checks it and says what would be stored. */
  'templates.add': z.strictObject({
    content: z.string().min(1),
    fileName: z.string().optional(),
    dryRun: z.boolean().optional(),
  }),
  'instances.list': z.strictObject({}),
  'instances.add': z.strictObject(instanceFields),
  /**
   * Several workstations at once (shared/workstation-batch.ts): all stored in one transaction or,
   * with any problem (a name or URL taken, twice in the list), none — every problem named by its
   * entry's `source`. Then each is probed (at most 32 at a time) and what it answered recorded.
   */
  'instances.addMany': z.strictObject({
    workstations: z.array(batchItem).min(1).max(MAX_BATCH),
    timeoutMs: z.number().positive().max(60_000).optional(),
  }),
  'instances.update': z.strictObject({ id: z.string().min(1), ...instanceFields }),
  'instances.remove': z.strictObject({ id: z.string().min(1) }),
  /** Pins a workstation to one engine of a PostgreSQL farm (its id or host: site affinity), or unpins it (null). */
  'instances.pin': pinInputSchema,
  'instances.setAdminState': z.strictObject({
    id: z.string().min(1),
    adminState: z.enum(['active', 'draining', 'disabled']),
  }),
  /**
   * Asks an idle LAN workstation's ComfyUI to unload its models and drop its caches (`POST /free`),
   * then probes it so the card shows the VRAM that freed. Refused while it renders, or for a RunPod endpoint.
   */
  'instances.freeVram': z.strictObject({ id: z.string().min(1) }),
  /** Probes a ComfyUI server at a URL and says what it found, storing nothing (the workstation form's "Test connection"). */
  'instances.test': z.strictObject({ url: urlSchema, timeoutMs: z.number().positive().max(60_000).optional() }),
  /** Probes every enabled workstation now and records what it said (no running farm needed). */
  'instances.probeAll': z.strictObject({
    timeoutMs: z
      .number()
      .positive()
      .max(10 * 60_000)
      .optional(),
  }),
  /**
   * A RunPod serverless endpoint running worker-comfyui as a workstation (issue 18). `apiBase`
   * defaults to RunPod's public API; it exists so tests and proxies can point elsewhere. It receives
   * the farm's RunPod key, so only the farm host sets it: a page's transport (serve, the desktop
   * page) refuses it with `forbidden` (electron/engine/pools/runpod/api-base.ts).
   */
  'cloud.addRunpod': z.strictObject({ ...runpodFields, apiBase: httpUrlSchema(RUNPOD_API_BASE).optional() }),
  /**
   * Edits a RunPod endpoint workstation (its card's Edit): endpoint id, name, price, and — kept as
   * stored when not given — jobs at once, tags, GPU, VRAM, execution timeout. The API base is not
   * edited (it is named only when added). `instances.update` refuses an endpoint.
   */
  'cloud.updateRunpod': z.strictObject({ id: z.string().min(1), ...runpodFields }),
  /**
   * The RunPod form's "Test connection": asks the endpoint's /health once with the farm's key and
   * says what happened, storing nothing. `id` names the endpoint being edited (its API base is
   * used); without it, RunPod's public API.
   */
  'cloud.testRunpod': z.strictObject({ id: z.string().min(1).optional(), endpointId: runpodFields.endpointId }),
  /** Local only: stores the RunPod API key encrypted at rest (null removes it). The answer never holds the key. */
  'cloud.setApiKey': z.strictObject({ apiKey: z.string().trim().min(8).max(500).nullable() }),
  /** Today's (UTC) cloud spend, per project/episode, and the daily budget. */
  'cloud.spend': z.strictObject({}),
  /** Local only: writes files. `outDir`: a folder inside the releases root (relative to it, or absolute inside it). */
  'release.freeze': z.strictObject({ project: nameSchema, episode: nameSchema, outDir: z.string().min(1).max(4_096) }),
  /** `path` (a manifest) and `root` (a delivery copy) inside the releases root, like freeze's outDir. */
  'release.verify': z.strictObject({
    path: z.string().min(1).max(4_096),
    root: z.string().min(1).max(4_096).optional(),
  }),
  'hooks.list': z.strictObject({}),
  'hooks.deliveries': z.strictObject({
    limit: z.number().int().min(1).max(10_000).optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
  }),
  /** Local only, like every hooks method: a hook runs a program on this machine, and a webhook URL may hold a token. */
  'hooks.set': z.strictObject({ hooks: hooksSchema }),
  'hooks.add': z.strictObject({ hook: hookSchema }),
  'hooks.remove': z.strictObject({ id: z.string().min(1) }),
  /** The farm settings (shared/farm-settings.ts): each with its value, default, unit and bounds. */
  'settings.list': z.strictObject({}),
  'settings.get': z.strictObject({ key: farmSettingKeySchema }),
  /** Local only: output_root chooses where this machine writes files, the rest how the farm behaves. */
  'settings.set': settingsSetInput,
  'settings.reset': z.strictObject({ key: farmSettingKeySchema }),
  /** Which of these files the farm lacks (send those), within its size limits per file and per import. */
  'uploads.check': uploadsCheckInput,
  'storage.get': z.strictObject({}),
  /** Local only: the setting may carry S3 secrets. null turns the copy off. */
  'storage.set': z.strictObject({ s3: s3SettingsSchema.nullable() }),
  'export.runlog': exportFilter,
  'export.ledger': exportFilter,
  /** Who the caller is and which method classes their role may use (the UI shows only those). */
  'session.whoami': z.strictObject({}),
  /** Local only, like every users method: people are managed with the CLI on the farm host (docs/studio-farm.md). */
  'users.list': z.strictObject({}),
  'users.add': z.strictObject({ name: personNameSchema, role: roleSchema }),
  'users.setRole': z.strictObject({ name: personNameSchema, role: roleSchema }),
  'users.revoke': z.strictObject({ name: personNameSchema }),
  /** A new token for a person; the old one stops working at once. */
  'users.token': z.strictObject({ name: personNameSchema }),
  /** Local only: a consistent copy of the database (SQLite's backup) to a new file; never overwrites. */
  'db.export': z.strictObject({ path: z.string().min(1).max(4_096) }),
  /** Local only: replaces this data folder's database with a Shotfarm database file, migrated. */
  'db.import': z.strictObject({ path: z.string().min(1).max(4_096), replace: z.boolean().optional() }),
  /** Local only: copies this SQLite farm into an empty PostgreSQL database (one transaction); `replace` replaces a farm already there. */
  'db.migrate': z.strictObject({ to: z.string().min(1).max(4_096), replace: z.boolean().optional() }),
} as const;

export type ApiMethod = keyof typeof API_INPUTS;
export type ApiInput<M extends ApiMethod> = z.infer<(typeof API_INPUTS)[M]>;

/** What each method resolves to. */
export interface ApiOutputs {
  'farm.status': FarmStatus;
  'farm.engines': FarmEngines;
  'farm.stop': FarmStatus;
  'farm.pause': FarmStatus;
  'farm.resume': FarmStatus;
  'jobs.list': JobPage;
  'jobs.get': JobView;
  'jobs.ids': { ids: string[]; total: number };
  'jobs.resolveIds': { ids: string[] };
  'jobs.bump': JobView[];
  'jobs.moveToTop': JobView[];
  'jobs.hold': JobView[];
  'jobs.release': JobView[];
  'jobs.cancel': JobView[];
  'jobs.retry': JobView[];
  'jobs.newTake': JobView[];
  'jobs.uncancel': JobView[];
  'jobs.restoreOrder': JobView[];
  'jobs.attempts': AttemptView[];
  'jobs.detail': JobDetail;
  'jobs.preview': JobPreview | null;
  'jobs.facets': JobFacets;
  'jobs.why': JobWhy;
  'failures.list': FailureGroup[];
  'timeline.get': TimelineView;
  'forecast.get': ForecastView;
  'assets.list': AssetPage;
  'assets.approve': { changed: number };
  'assets.file': AssetFileAnswer;
  'import.preview': ImportPreview;
  'import.previewRows': ImportPreviewRows;
  'import.commit': ImportResult;
  'templates.list': TemplateView[];
  'templates.add': TemplateView;
  'templates.vram': TemplateVramView;
  'templates.pinVram': TemplateVramView;
  'templates.runTimes': TemplateRunTimeView;
  'templates.history': TemplateHistoryView;
  'instances.list': InstanceView[];
  'instances.add': InstanceView;
  'instances.addMany': WorkstationBatchResult;
  'instances.update': InstanceView;
  'instances.remove': { removed: boolean };
  'instances.pin': InstanceView;
  'instances.setAdminState': InstanceView;
  'instances.freeVram': InstanceView;
  'instances.test': ConnectionTestView;
  'instances.probeAll': ProbeReport;
  'cloud.addRunpod': InstanceView;
  'cloud.updateRunpod': InstanceView;
  'cloud.testRunpod': RunpodTestView;
  'cloud.setApiKey': { keySource: 'environment' | 'stored' | 'none' };
  'cloud.spend': CloudSpend;
  'release.freeze': FreezeResult;
  'release.verify': VerifyReport;
  'hooks.list': HookConfig[];
  'hooks.deliveries': HookDeliveryView[];
  'hooks.set': HookConfig[];
  'hooks.add': HookConfig;
  'hooks.remove': HookConfig[];
  'settings.list': FarmSettingView[];
  'settings.get': FarmSettingView;
  'settings.set': FarmSettingView;
  'settings.reset': FarmSettingView;
  'uploads.check': UploadsCheck;
  'storage.get': StorageView;
  'storage.set': StorageView;
  'export.runlog': ExportResult;
  'export.ledger': ExportResult;
  'session.whoami': SessionView;
  'users.list': PersonView[];
  'users.add': IssuedToken;
  'users.setRole': PersonView;
  'users.revoke': PersonView;
  'users.token': IssuedToken;
  'db.export': { path: string; bytes: number };
  'db.import': { path: string; jobs: number; replaced: boolean };
  /** Each table's rows in the source and in PostgreSQL after the copy (equal, or the move was rolled back). */
  'db.migrate': { tables: { table: string; source: number; destination: number }[]; replaced: boolean; ms: number };
}

/**
 * The engine's side of the contract: one async handler per method, told who calls (the actor of
 * what it changes; the permission policy has already allowed the call).
 */
export type ApiHandlers = { [M in ApiMethod]: (input: ApiInput<M>, caller: Caller) => Promise<ApiOutputs[M]> };

/** A client's side: `call('jobs.bump', {...})` typed end to end. */
export interface ApiClient {
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutputs[M]>;
}

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.hasOwn(API_INPUTS, name);
}
