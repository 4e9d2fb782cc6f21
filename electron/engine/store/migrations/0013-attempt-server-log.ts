/**
 * Issue 25: the failed attempt's lines from its LAN ComfyUI's own log (`GET /internal/logs/raw`,
 * comfyui-protocol.md §15), or why there are none, kept with the attempt for the drawer. JSON in the
 * shape of shared/server-log.ts, bounded by the writer (pools/comfy-lan/server-log.ts); written after
 * the attempt's outcome, never instead of it. NULL: not read (the attempt did not fail with an
 * execution error, a RunPod attempt, a row from before).
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE attempts ADD COLUMN server_log_json TEXT;
`;
