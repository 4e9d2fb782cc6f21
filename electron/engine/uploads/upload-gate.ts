/**
 * Who may send which file, and how much (issue 29): the PUT route once took any file of any
 * importer up to the per-file limit — 30 direct PUTs stored 26.6 MB against a 3 MB per-import limit,
 * and nothing was ever removed, so one importer could fill the disk that holds the whole farm.
 *
 * Now a file is taken only after its sender announced it with uploads.check (as the import page
 * always does): the check reserves the missing files of one import for that person, at the sizes
 * announced, within upload_import_max_mb; a PUT must match a reservation of its sender and may not
 * send more bytes than announced. A person's reservations together stay within the per-import
 * limit too (their oldest are dropped first), so announcing import after import adds nothing. On
 * top, everything a person's uploads weigh is bounded by upload_person_max_mb, at the check and
 * again at the PUT. Reservations live in memory: they are minutes old when used, and a restarted
 * farm asks the page to check again.
 */
import type { Db } from '../store/database.js';
import { personUploadBytes } from '../store/upload-store.js';
import { mb, UploadTooLarge } from './receive-upload.js';

/** A reservation is used within minutes (hash, check, send); an hour covers a slow link and a large import. */
const RESERVATION_TTL_MS = 60 * 60_000;

interface Reserved {
  sha256: string;
  size: number;
  at: number;
}

/** How often the unused uploads are looked for, at most (they are kept hours; a sweep per call would only cost). */
const SWEEP_EVERY_MS = 10 * 60_000;

export class UploadGate {
  /** Per sender (a person's name or `local`): what they announced, oldest first. */
  private readonly bySender = new Map<string, Reserved[]>();
  private lastSweepAt: number | null = null;

  /** Whether a sweep of unused uploads is due (upload-sweep.ts); true at most once per SWEEP_EVERY_MS. */
  sweepDue(now: number): boolean {
    if (this.lastSweepAt !== null && now - this.lastSweepAt < SWEEP_EVERY_MS) return false;
    this.lastSweepAt = now;
    return true;
  }

  /** Reserves one import's missing files for `sender`; their older reservations go first while all of them would exceed `importMaxBytes`. */
  reserve(
    sender: string,
    files: readonly { sha256: string; size: number }[],
    importMaxBytes: number,
    now: number,
  ): void {
    const fresh = new Map(files.map((f) => [f.sha256, f.size]));
    const kept = this.live(sender, now).filter((r) => !fresh.has(r.sha256));
    const next = [...kept, ...[...fresh].map(([sha256, size]) => ({ sha256, size, at: now }))];
    let total = next.reduce((n, r) => n + r.size, 0);
    while (total > importMaxBytes && next.length > 0) total -= (next.shift() as Reserved).size;
    if (next.length) this.bySender.set(sender, next);
    else this.bySender.delete(sender);
  }

  /** The bytes `sender` announced for this file, or null when they did not (or long ago). */
  announced(sender: string, sha256: string, now: number): number | null {
    return this.live(sender, now).find((r) => r.sha256 === sha256)?.size ?? null;
  }

  /** The file arrived: its reservation is used up. */
  received(sender: string, sha256: string): void {
    const left = (this.bySender.get(sender) ?? []).filter((r) => r.sha256 !== sha256);
    if (left.length) this.bySender.set(sender, left);
    else this.bySender.delete(sender);
  }

  private live(sender: string, now: number): Reserved[] {
    return (this.bySender.get(sender) ?? []).filter((r) => now - r.at <= RESERVATION_TTL_MS);
  }
}

/** Refuses `sender` more than `personMaxBytes` in all: what they keep stored plus `incoming`. */
export function checkPersonQuota(db: Db, sender: string, incoming: number, personMaxBytes: number): void {
  const kept = personUploadBytes(db, sender);
  if (kept + incoming <= personMaxBytes) return;
  const who = sender === 'local' ? "this farm's operator" : sender;
  throw new UploadTooLarge(
    'bad_input',
    `Upload refused: the files uploaded by ${who} come to ${mb(kept)}; with ${mb(incoming)} more that is over the farm's limit of ${mb(personMaxBytes)} per person (setting upload_person_max_mb). Files no job uses are removed after upload_unused_keep_h; ask the farm's admin to raise the limit. Nothing was stored.`,
  );
}
