/**
 * What crosses the wire to a RunPod serverless endpoint running worker-comfyui, as zod schemas
 * (docs/runpod-protocol.md says where each shape comes from). Every answer is validated before it
 * is believed; unknown extra fields are kept out of the parsed value.
 */
import { z } from 'zod';

/** The job states of a queue-based endpoint (RunPod "job states"). */
export const RUNPOD_JOB_STATES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
export type RunpodJobState = (typeof RUNPOD_JOB_STATES)[number];

/** RunPod caps a /run request body at 10 MB (its operation reference); we refuse larger ones before sending. */
export const RUN_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * The largest answer read per RunPod operation, in bytes: what the API sends there, with a wide
 * margin. A larger one is refused as it arrives, never buffered whole (comfy/http.ts readCapped) —
 * a hostile base once answered /health with 300 MB and took `serve` from 181 MB to 1.27 GB.
 * /status is the one large answer: a COMPLETED job carries its output images as base64 (an endpoint
 * with an S3 bucket sends URLs instead, and a farm with big outputs should configure one).
 */
export const RUNPOD_ANSWER_LIMITS = {
  'POST /run': 64 * 1024,
  'GET /status': 128 * 1024 * 1024,
  'POST /cancel': 64 * 1024,
  'GET /health': 64 * 1024,
} as const;
export type RunpodRoute = keyof typeof RUNPOD_ANSWER_LIMITS;

/** POST /run answers the job's id and its first state (always IN_QUEUE in practice). */
export const runAnswerSchema = z.object({ id: z.string().min(1).max(200), status: z.string() });

/** One output image of worker-comfyui: base64 data, or an S3 URL when the endpoint has a bucket configured. */
export const workerImageSchema = z.object({
  filename: z.string().min(1).max(500),
  type: z.enum(['base64', 's3_url']),
  data: z.string(),
});
export type WorkerImage = z.infer<typeof workerImageSchema>;

/** worker-comfyui's successful output: `{ images: [...] }`, with non-fatal `errors` beside them. */
export const workerOutputSchema = z.object({
  images: z.array(workerImageSchema).optional(),
  errors: z.array(z.string()).optional(),
  error: z.string().optional(),
});

/** GET /status/{id}: the state, timings in ms, and the handler's output once COMPLETED, or its error once FAILED. */
export const statusAnswerSchema = z.object({
  id: z.string(),
  status: z.enum(RUNPOD_JOB_STATES),
  delayTime: z.number().nonnegative().optional(),
  executionTime: z.number().nonnegative().optional(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  workerId: z.string().optional(),
});
export type StatusAnswer = z.infer<typeof statusAnswerSchema>;

/** GET /health: the endpoint's job and worker counts. */
export const healthAnswerSchema = z.object({
  jobs: z
    .object({
      completed: z.number(),
      failed: z.number(),
      inProgress: z.number(),
      inQueue: z.number(),
      retried: z.number(),
    })
    .partial(),
  workers: z.object({ idle: z.number(), running: z.number() }).partial().passthrough(),
});
export type HealthAnswer = z.infer<typeof healthAnswerSchema>;

/** The request body of /run for worker-comfyui: the API-format workflow and the input images as base64. */
export interface WorkerInput {
  workflow: Record<string, unknown>;
  images?: { name: string; image: string }[];
}

/** A FAILED job's error as text (RunPod passes the handler's `error` through; a lost worker says so in its own words). */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error === undefined || error === null) return 'no error message';
  try {
    return JSON.stringify(error).slice(0, 2_000);
  } catch {
    return String(error);
  }
}

/**
 * worker-comfyui's validation messages (handler.py: validate_input, queue_workflow on ComfyUI's 400,
 * a node or model that is not installed): the same request would fail again anywhere on that endpoint.
 */
const PERMANENT = [
  /Workflow validation failed/i,
  /Missing 'workflow' parameter/i,
  /Invalid JSON format in input/i,
  /Please provide input/i,
  /'images' must be a list/i,
  /not in list/i,
  /missing_node_type/i,
  /Node '.*' not found/i,
  /does not exist/i,
  /Error decoding base64/i,
];

export function isPermanentWorkerError(text: string): boolean {
  return PERMANENT.some((re) => re.test(text));
}
