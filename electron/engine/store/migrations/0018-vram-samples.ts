/**
 * Issue 28: the farm learns each template version's VRAM need per GPU model. One row per measured
 * attempt (vram-sample-store.ts): a good run's need, or an out-of-memory run's "needed more than".
 * `template_vram_pins` is the operator's choice per template name (declared, learned or auto).
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TABLE vram_samples (
  id INTEGER PRIMARY KEY,
  attempt_id TEXT NOT NULL,
  template_id INTEGER NOT NULL,
  gpu TEXT NOT NULL,
  pixels INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'oom')),
  need_gb REAL NOT NULL,
  added_gb REAL NOT NULL,
  peak_gb REAL NOT NULL,
  baseline_gb REAL NOT NULL,
  other_gb REAL NOT NULL,
  warm INTEGER NOT NULL,
  reads INTEGER NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX vram_samples_template ON vram_samples (template_id, gpu, id);
CREATE TABLE template_vram_pins (
  name TEXT PRIMARY KEY,
  pin TEXT NOT NULL CHECK (pin IN ('declared', 'learned')),
  actor TEXT NOT NULL,
  at INTEGER NOT NULL
);
`;
