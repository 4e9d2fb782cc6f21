// Zod schemas for every ComfyUI HTTP response body and WebSocket JSON frame the client reads.
// Lenient on purpose: ComfyUI adds keys between releases and custom nodes add more, so objects
// are loose and only the fields we rely on are required. Shapes follow
// docs/comfyui-protocol.md and the recorded 0.3.64 responses in test/fixtures/comfyui-recorded/.
import { z } from 'zod';

const json = z.unknown();
const record = z.record(z.string(), json);

// ---------- POST /prompt ----------

/** One entry of `node_errors[id].errors` (`execution.py` validate_inputs). */
export const ValidationErrorItemSchema = z.looseObject({
  type: z.string(),
  message: z.string(),
  details: z.string().default(''),
  extra_info: record.default({}),
});

export const NodeErrorSchema = z.looseObject({
  errors: z.array(ValidationErrorItemSchema),
  dependent_outputs: z.array(z.string()).default([]),
  class_type: z.string().nullable().default(null),
});

/**
 * `node_errors`: a dict keyed by node id; old servers send `[]` when empty. Normalised to a dict.
 */
export const NodeErrorsSchema = z
  .union([z.record(z.string(), NodeErrorSchema), z.array(json).max(0)])
  .transform((v) => (Array.isArray(v) ? {} : v));

export const PromptSuccessSchema = z.looseObject({
  // str(...) server-side; older servers may mint it, so any string.
  prompt_id: z.string(),
  // A float when the client supplied `number` (e.g. -1000.0), negative for `front`.
  number: z.number(),
  node_errors: NodeErrorsSchema.default({}),
});

/** The structured `error` of a 400 (`{type, message, details, extra_info}`): the shape of one validation error. */
export const PromptErrorObjectSchema = ValidationErrorItemSchema;

/**
 * A 400 body: `error` is an object on current servers and a bare string on old ones
 * (`{"error": "no prompt", "node_errors": []}`).
 */
export const PromptErrorBodySchema = z.looseObject({
  error: z.union([PromptErrorObjectSchema, z.string()]),
  node_errors: NodeErrorsSchema.default({}),
});

// ---------- /queue, /history ----------

/** `[number, prompt_id, prompt, extra_data, outputs_to_execute]` — the 6th (sensitive) is stripped. */
export const QueueItemSchema = z.tuple([z.number(), z.string(), record, record, z.array(z.string())]).rest(json);

export const QueueSchema = z.looseObject({
  queue_running: z.array(QueueItemSchema),
  queue_pending: z.array(QueueItemSchema),
});

/** GET /prompt → `{exec_info: {queue_remaining}}`. */
export const PromptQueueInfoSchema = z.looseObject({
  exec_info: z.looseObject({ queue_remaining: z.number() }),
});

/** `status.messages` items: `[event_type, data]`, the same data as the WS frames. */
export const HistoryStatusSchema = z.looseObject({
  status_str: z.string(),
  completed: z.boolean(),
  messages: z.array(z.tuple([z.string(), json]).rest(json)).default([]),
});

export const HistoryEntrySchema = z.looseObject({
  prompt: QueueItemSchema,
  // node id → UI output (`images`, `gifs`, `text`, …). Shape per key varies by node.
  outputs: z.record(z.string(), record).default({}),
  status: HistoryStatusSchema.optional(),
  meta: record.optional(),
});

/** GET /history and GET /history/{id}: `{}` when the id is unknown. */
export const HistorySchema = z.record(z.string(), HistoryEntrySchema);

// ---------- /system_stats, /features, /upload/image ----------

export const DeviceSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  index: z.number().nullable().optional(),
  vram_total: z.number(),
  vram_free: z.number(),
  torch_vram_total: z.number(),
  torch_vram_free: z.number(),
});

export const SystemStatsSchema = z.looseObject({
  system: z.looseObject({
    os: z.string(),
    ram_total: z.number(),
    ram_free: z.number(),
    comfyui_version: z.string().optional(),
    python_version: z.string().optional(),
    pytorch_version: z.string().optional(),
    embedded_python: z.boolean().optional(),
    argv: z.array(z.string()).optional(),
  }),
  devices: z.array(DeviceSchema),
});

export const FeaturesSchema = z.looseObject({
  supports_preview_metadata: z.boolean().optional(),
  max_upload_size: z.number().optional(),
});

/**
 * `GET /internal/logs/raw` (protocol §15): the server's last 300 stdout/stderr writes, oldest first.
 * An entry that is not `{t: string, m: string}` is dropped by the reader, not the whole answer.
 */
export const RawLogsSchema = z.looseObject({
  entries: z.array(json),
});

export const UploadImageSchema = z.looseObject({
  name: z.string(),
  subfolder: z.string(),
  type: z.string(),
});

// ---------- /object_info ----------

/**
 * Input specs stay `unknown`: `required`/`optional` hold `[type, options?]` arrays in two combo
 * encodings, `hidden` holds bare strings. capabilities.ts interprets them.
 */
export const NodeInfoSchema = z.looseObject({
  input: z
    .looseObject({
      required: record.optional(),
      optional: record.optional(),
      hidden: record.optional(),
    })
    .default({}),
  output: z.array(json).optional(),
  output_node: z.boolean().optional(),
  name: z.string().optional(),
  display_name: z.string().nullable().optional(),
  category: z.string().optional(),
});

export const ObjectInfoSchema = z.record(z.string(), NodeInfoSchema);

// ---------- WebSocket JSON frames ----------

const promptId = z.string();
const timestamp = z.number().optional();
const nodeIds = z.array(z.string());

export const WsDataSchemas = {
  status: z.looseObject({
    status: z.looseObject({ exec_info: z.looseObject({ queue_remaining: z.number() }) }),
    sid: z.string().optional(),
  }),
  execution_start: z.looseObject({ prompt_id: promptId, timestamp }),
  execution_cached: z.looseObject({ nodes: nodeIds, prompt_id: promptId, timestamp }),
  // `prompt_id` is absent on the replay frame sent right after a (re)connect.
  executing: z.looseObject({
    node: z.string().nullable(),
    display_node: z.string().optional(),
    prompt_id: promptId.optional(),
  }),
  progress: z.looseObject({
    value: z.number(),
    max: z.number(),
    prompt_id: promptId.optional(),
    node: z.string().nullable().optional(),
  }),
  progress_state: z.looseObject({
    prompt_id: promptId,
    nodes: z.record(
      z.string(),
      z.looseObject({
        value: z.number(),
        max: z.number(),
        state: z.string(),
        node_id: z.string().optional(),
        display_node_id: z.string().nullable().optional(),
      }),
    ),
  }),
  executed: z.looseObject({
    node: z.string(),
    display_node: z.string().optional(),
    output: record.nullable(),
    prompt_id: promptId,
  }),
  execution_success: z.looseObject({ prompt_id: promptId, timestamp }),
  execution_error: z.looseObject({
    prompt_id: promptId,
    node_id: z.string().nullable(),
    node_type: z.string().nullable(),
    executed: nodeIds.default([]),
    exception_message: z.string(),
    exception_type: z.string(),
    traceback: z.array(z.string()).default([]),
    current_inputs: json.optional(),
    current_outputs: json.optional(),
    timestamp,
  }),
  execution_interrupted: z.looseObject({
    prompt_id: promptId,
    node_id: z.string().nullable().optional(),
    node_type: z.string().nullable().optional(),
    executed: nodeIds.default([]),
    timestamp,
  }),
  feature_flags: record,
} as const;

export type KnownWsType = keyof typeof WsDataSchemas;
export type WsData<T extends KnownWsType> = z.output<(typeof WsDataSchemas)[T]>;

/** The envelope of every JSON frame. Unknown `type`s are legal and ignored by the follower. */
export const WsEnvelopeSchema = z.looseObject({ type: z.string(), data: json });

export type NodeError = z.output<typeof NodeErrorSchema>;
export type ValidationErrorItem = z.output<typeof ValidationErrorItemSchema>;
export type HistoryStatus = z.output<typeof HistoryStatusSchema>;
export type SystemStats = z.output<typeof SystemStatsSchema>;
export type DeviceStats = z.output<typeof DeviceSchema>;
export type NodeInfo = z.output<typeof NodeInfoSchema>;
export type ObjectInfo = z.output<typeof ObjectInfoSchema>;
export type Features = z.output<typeof FeaturesSchema>;
export type RawLogs = z.output<typeof RawLogsSchema>;
export type UploadedImage = { name: string; subfolder: string; type: string };
