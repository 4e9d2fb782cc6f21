/**
 * Who holds a data folder's farm: the record the lock holder keeps beside its lock (engine-lock.ts)
 * — its pid, host, kind, since when, and how a CLI in another terminal reaches it (the loopback
 * control address and its token, control-listener.ts). The record is only believed while the lock
 * is held: a crashed holder leaves its record behind, but the kernel has released its lock.
 *
 * The file holds a token, so it is written for this user only (0600), like the database beside it.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const ENGINE_KINDS = ['desktop', 'serve', 'run', 'embedded', 'migrate'] as const;
/** Which program runs the farm: the desktop app's engine, `shotfarm serve`, `shotfarm run`, or another program embedding the engine. */
export type EngineKind = (typeof ENGINE_KINDS)[number];

export const lockRecordSchema = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string().max(300),
  kind: z.enum(ENGINE_KINDS),
  /** When it took the farm (epoch ms). */
  since: z.number().int(),
  dataDir: z.string().max(4_096),
  /** The loopback listener one-shot CLI commands call (null until it listens). */
  control: z.strictObject({ url: z.string().url().max(200), token: z.string().min(16).max(200) }).nullable(),
  /** `serve`'s own address, for the operator's eyes. */
  serveUrl: z.string().max(300).nullable(),
});
export type LockRecord = z.infer<typeof lockRecordSchema>;

/** The record on disk, or null when there is none or it is not one (a half-written or foreign file). */
export function readLockRecord(file: string): LockRecord | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = lockRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Replaces the record atomically (a reader sees the old one or the new one, never half of it). */
export function writeLockRecord(file: string, record: LockRecord): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

const KIND_WORDS: Readonly<Record<EngineKind, string>> = {
  desktop: 'the Shotfarm desktop app',
  serve: '`shotfarm serve`',
  run: '`shotfarm run`',
  embedded: 'a program embedding the Shotfarm engine',
  // Not an engine: `db migrate` holds the farm while it copies it, so none starts meanwhile.
  migrate: '`shotfarm db migrate`',
};

export function kindWords(kind: EngineKind): string {
  return KIND_WORDS[kind];
}

/** Local time as an operator reads it: 2026-12-01 09:42:07. */
function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** "`shotfarm serve` (pid 4242 on studio-01, since 2026-12-01 09:42:07, serving http://…)". */
export function holderWords(r: LockRecord): string {
  const where = r.serveUrl ? `, serving ${r.serveUrl}` : '';
  return `${kindWords(r.kind)} (pid ${r.pid} on ${r.host}, since ${localTime(r.since)}${where})`;
}

/**
 * The sentence a second engine refuses with: who holds the farm, since when, and what to do. A
 * record not written yet (the holder started a moment ago) still gets a sentence.
 */
export function farmHeldSentence(dataDir: string, r: LockRecord | null): string {
  const who = r ? holderWords(r) : 'another Shotfarm engine (it is just starting)';
  const stop = r ? `stop it first (Ctrl+C in its terminal, quit the app, or \`kill ${r.pid}\`)` : 'stop it first';
  return (
    `The farm on ${dataDir} is already run by ${who}. Only one engine may run a data folder's farm: ${stop}, ` +
    'or leave it running — other shotfarm commands (import, jobs, workers, farm …) reach it by themselves.'
  );
}

/**
 * The sentence a second engine on the same PostgreSQL database refuses with (its farm lock is held
 * by another session): who holds it when the farm's claim says, and what to do.
 */
export function databaseHeldSentence(database: string, r: LockRecord | null): string {
  const who = r ? holderWords(r) : 'another Shotfarm engine';
  const stop = r ? `stop it first (Ctrl+C in its terminal, or \`kill ${r.pid}\` on ${r.host})` : 'stop it first';
  return (
    `The farm in the database ${database} is already run by ${who}. Only one engine may run a farm's database: ${stop}, ` +
    'or leave it running and reach it through its server (shotfarm serve).'
  );
}
