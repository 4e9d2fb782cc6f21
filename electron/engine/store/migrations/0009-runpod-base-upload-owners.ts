/**
 * Issue 29: the RunPod key goes only to RunPod, and uploads are bounded per person and swept.
 * APPEND-ONLY: never edit once shipped.
 *
 * `instances.api_base_local` is 1 when the endpoint's API base was chosen on the farm host (the
 * CLI calling the engine directly); a page's transport never lets a caller choose one
 * (cloud/api-base.ts). The key is sent only to RunPod's public API or to a base marked here. Rows
 * from before this migration start at 0: a base someone set over the network before the rule
 * existed does not keep receiving the key (add the endpoint again on the farm host to mark it).
 * The trigger makes "changing the base forgets the key" hold for every writer: an UPDATE that
 * changes api_base leaves api_base_local 0, unless that same UPDATE raises it from 0 to 1 (a path
 * on the farm host that sets a new base marks it after the base is written, in its transaction).
 *
 * `uploads.uploaded_by`: who sent the file first (a person's name, or `local`) — their quota
 * (upload_person_max_mb) counts it; NULL for files from before, counted to nobody.
 * `uploads.last_used_at`: when it was last sent, announced or previewed; a file no job references
 * is removed upload_unused_keep_h after that (uploads/upload-sweep.ts).
 */
export const sql = `
ALTER TABLE instances ADD COLUMN api_base_local INTEGER NOT NULL DEFAULT 0 CHECK (api_base_local IN (0, 1));
CREATE TRIGGER instances_new_base_forgets_key AFTER UPDATE OF api_base ON instances
  WHEN NEW.api_base IS NOT OLD.api_base AND NOT (NEW.api_base_local = 1 AND OLD.api_base_local = 0)
  BEGIN UPDATE instances SET api_base_local = 0 WHERE id = NEW.id; END;
ALTER TABLE uploads ADD COLUMN uploaded_by TEXT;
ALTER TABLE uploads ADD COLUMN last_used_at INTEGER;
CREATE INDEX uploads_by_person ON uploads (uploaded_by) WHERE uploaded_by IS NOT NULL;
`;
