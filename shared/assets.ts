/**
 * The asset ledger as clients see it: one output file per row, traceable to its job, and which file
 * a host may serve for a ledger id (`assets.file`). Re-exported by domain.ts.
 */
import type { TakeKey } from './take-key.js';

export interface AssetView extends TakeKey {
  id: string;
  jobId: string;
  path: string;
  fileName: string;
  sha256: string;
  bytes: number;
  mediaType: string;
  width: number | null;
  height: number | null;
  instanceName: string | null;
  templateName: string;
  seed: number | null;
  approved: boolean;
  createdAt: number;
}

export interface AssetPage {
  rows: AssetView[];
  /** Matching outputs up to `upTo` (all of them without it). */
  total: number;
  /** The ledger's newest position now: ask with `upTo` set to it to see this same set while new outputs arrive. */
  position: number;
  /** Matching outputs stored after `upTo` (0 without it): "12 new outputs — show". */
  newer: number;
}

/** Ledger ids as the engine makes them (UUIDs); a host checks a requested id against this before asking. */
export const ASSET_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * `assets.file`: the file to serve for a ledger id — its real path (links resolved) inside the
 * output folder, media type and size — or why it is not served. Both hosts (the headless server's
 * /files/asset/:id, the desktop's shotfarm-asset: scheme) serve exactly this.
 */
export type AssetFileAnswer =
  | { ok: true; id: string; path: string; fileName: string; mediaType: string; bytes: number }
  | { ok: false; refusal: AssetRefusal; message: string };

/** unknown: no such ledger row; outside: its path is not inside the output folder; missing: no file there. */
export type AssetRefusal = 'unknown' | 'outside' | 'missing';

/** The HTTP status each refusal is answered with, by either host. */
export const ASSET_REFUSAL_STATUS: Readonly<Record<AssetRefusal, 403 | 404>> = {
  unknown: 404,
  outside: 403,
  missing: 404,
};
