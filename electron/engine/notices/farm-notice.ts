/**
 * What one engine tells the others sharing its PostgreSQL database (NOTIFY on the farm's channel):
 * which jobs changed, or "re-read" when too many did to name, and whether the settings, the farm
 * state, workstations or templates changed. Compact JSON (one-letter keys): a NOTIFY payload holds
 * at most 8,000 bytes, and one notice carries everything an engine said in a few milliseconds.
 */
import { z } from 'zod';

export interface FarmNotice {
  /** The engine that sent it (its own notices come back to it too, and are skipped). */
  from: string;
  /** Jobs whose rows changed (at most JOBS_CAP; more make `reread`). */
  jobs: string[];
  /** Too many jobs changed to name: the hearer refetches what it shows. */
  reread: boolean;
  settings: boolean;
  farm: boolean;
  /** Workstations added, edited or removed (at most JOBS_CAP; more make `allInstances`). */
  instances: string[];
  allInstances: boolean;
  templates: boolean;
}

/** Beyond this many jobs (or workstations) a notice says "re-read" instead: 100 job ids are ~4 KB. */
export const JOBS_CAP = 100;
/** PostgreSQL's payload limit is 8,000 bytes: a payload past this one says "re-read" instead. */
const PAYLOAD_CAP = 7_500;

const WIRE = z
  .object({
    e: z.string().min(1).max(100),
    j: z.array(z.string().min(1).max(100)).max(JOBS_CAP).optional(),
    r: z.literal(1).optional(),
    s: z.literal(1).optional(),
    f: z.literal(1).optional(),
    i: z.array(z.string().min(1).max(100)).max(JOBS_CAP).optional(),
    a: z.literal(1).optional(),
    t: z.literal(1).optional(),
  })
  .strict();

/** The notice as its payload: ids past the caps, or a payload past PAYLOAD_CAP, become "re-read". */
export function encodeNotice(n: FarmNotice): string {
  const wire: z.infer<typeof WIRE> = { e: n.from };
  if (n.reread || n.jobs.length > JOBS_CAP) wire.r = 1;
  else if (n.jobs.length) wire.j = n.jobs;
  if (n.allInstances || n.instances.length > JOBS_CAP) wire.a = 1;
  else if (n.instances.length) wire.i = n.instances;
  if (n.settings) wire.s = 1;
  if (n.farm) wire.f = 1;
  if (n.templates) wire.t = 1;
  const text = JSON.stringify(wire);
  if (Buffer.byteLength(text) <= PAYLOAD_CAP) return text;
  // Long ids (no engine makes them, but a payload past the server's limit would fail the NOTIFY).
  return JSON.stringify({
    ...wire,
    j: undefined,
    i: undefined,
    ...(wire.j ? { r: 1 } : {}),
    ...(wire.i ? { a: 1 } : {}),
  });
}

/** A payload heard on the channel, or null when it is not a notice (another program on the channel, a newer engine). */
export function parseNotice(payload: string): FarmNotice | null {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return null;
  }
  const w = WIRE.safeParse(raw);
  if (!w.success) return null;
  return {
    from: w.data.e,
    jobs: w.data.j ?? [],
    reread: w.data.r === 1,
    settings: w.data.s === 1,
    farm: w.data.f === 1,
    instances: w.data.i ?? [],
    allInstances: w.data.a === 1,
    templates: w.data.t === 1,
  };
}
