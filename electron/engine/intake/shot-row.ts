/**
 * One job-to-be from a shot list, whatever the file format: the common shape both readers produce
 * and the preview validates. Errors found while reading stay on the row (never thrown), so one bad
 * row never hides the others.
 */
import type { Priority } from '../../../shared/priorities.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import type { TakeKey } from '../../../shared/take-key.js';

export interface ShotRow extends TakeKey {
  /** 1-based position among the file's rows (a CSV data row, a JSON shot-stage). */
  row: number;
  line: number | null;
  description: string | null;
  template: string;
  priority: Priority;
  parameters: Record<string, ParamValue>;
  /** Parameter name → input file path as written in the file. */
  inputs: Record<string, string>;
  dependsOn: string | null;
  seed: number | null;
  /** When the shot list wants it done (epoch ms; shared/forecast.ts parseDue), or null. */
  due: number | null;
  /** Tracker columns kept for the record (frames, cut in/out, status…). */
  metadata: Record<string, string>;
  errors: string[];
}

export interface ReadResult {
  format: 'json' | 'csv';
  rows: ShotRow[];
  /** CSV only: canonical field or parameter → the column that fed it. */
  mapping: Record<string, string>;
}

/**
 * The one empty record a row without metadata or inputs holds: a 100k-row list keeps its rows
 * until the import is committed, and an empty object per row and field is that many more objects
 * for every garbage collection to copy. Frozen, so a writer that forgets to make its own throws.
 */
export const NO_ENTRIES: Readonly<Record<string, string>> = Object.freeze({});
