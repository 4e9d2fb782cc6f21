/**
 * Issue 29: the RunPod key goes only to RunPod. APPEND-ONLY: never edit once shipped.
 *
 * `instances.api_base_local` is 1 when the endpoint's API base was chosen on the farm host (the
 * CLI calling the engine directly); a page's transport never lets a caller choose one
 * (cloud/api-base.ts). The key is sent only to RunPod's public API or to a base marked here. Rows
 * from before this migration start at 0: a base someone set over the network before the rule
 * existed does not keep receiving the key (add the endpoint again on the farm host to mark it).
 */
export const sql = `
ALTER TABLE instances ADD COLUMN api_base_local INTEGER NOT NULL DEFAULT 0 CHECK (api_base_local IN (0, 1));
`;
