/**
 * Cloud burst (issue 18): a workstation may be a RunPod serverless endpoint running
 * worker-comfyui instead of a ComfyUI server on the LAN. APPEND-ONLY: never edit once shipped.
 *
 * `instances.kind` is 'comfyui' (every existing row) or 'runpod'; a runpod row keeps its endpoint
 * id, the API base it is reached at, what a GPU-hour costs there and the endpoint's execution
 * timeout (how long an "unknown on RunPod" attempt must wait before it is retried). Its `url` is
 * `<api base>/<endpoint id>`, so the UNIQUE url still says "one row per endpoint".
 *
 * On `attempts`: the RunPod job id, stored the moment /run returns it (recovery reconciles by it,
 * and only ids stored here are ever cancelled), and what the attempt was billed.
 */
export const sql = `
ALTER TABLE instances ADD COLUMN kind TEXT NOT NULL DEFAULT 'comfyui' CHECK (kind IN ('comfyui', 'runpod'));
ALTER TABLE instances ADD COLUMN runpod_endpoint_id TEXT;
ALTER TABLE instances ADD COLUMN api_base TEXT;
ALTER TABLE instances ADD COLUMN price_per_hour_usd REAL;
ALTER TABLE instances ADD COLUMN execution_timeout_s INTEGER;
ALTER TABLE attempts ADD COLUMN runpod_job_id TEXT;
ALTER TABLE attempts ADD COLUMN billed_s REAL;
ALTER TABLE attempts ADD COLUMN cost_usd REAL;
CREATE INDEX attempts_cost ON attempts (finished_at) WHERE cost_usd IS NOT NULL;
`;
