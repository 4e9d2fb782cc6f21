/**
 * Lost contact, durably: an attempt whose workstation stopped answering says since when and when
 * it will be requeued (so a CLI in another process sees it), and keeps the stretches without an
 * answer for the timeline; a workstation keeps the time of its last answer, apart from the time of
 * its last probe. Backfill: a workstation whose last probe had no error answered then.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE attempts ADD COLUMN contact_lost_at INTEGER;
ALTER TABLE attempts ADD COLUMN requeue_at INTEGER;
ALTER TABLE attempts ADD COLUMN contact_gaps_json TEXT;
ALTER TABLE instances ADD COLUMN last_answer_at INTEGER;
UPDATE instances SET last_answer_at = last_probe_at WHERE last_error IS NULL;
`;
