/**
 * People and who did what (issue 17): a person has a role and a personal access token, stored only
 * as its SHA-256 (a token is 32 random bytes, so a plain hash is enough: nothing to brute-force);
 * revoking keeps the row so the history still names them. Jobs say who imported them (existing
 * ones: the solo operator, `local`) and who last acted on them (a person or `local`, not the
 * scheduler), attempts who started them (the scheduler), ledger approvals
 * who approved and when.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  role TEXT NOT NULL CHECK (role IN ('artist', 'operator', 'lead', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
ALTER TABLE jobs ADD COLUMN imported_by TEXT NOT NULL DEFAULT 'local';
ALTER TABLE jobs ADD COLUMN last_action_by TEXT;
ALTER TABLE attempts ADD COLUMN started_by TEXT NOT NULL DEFAULT 'scheduler';
ALTER TABLE assets ADD COLUMN approved_by TEXT;
ALTER TABLE assets ADD COLUMN approved_at INTEGER;
`;
