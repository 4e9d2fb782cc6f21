/**
 * Several engines on one PostgreSQL farm (issue 27): who they are and which workstations each
 * drives — `farm.engines` (the CLI's `farm engines`, a UI panel) and a workstation card's `engine`.
 */
import { z } from 'zod';

/** One engine that runs (or ran, within the last day) the farm. */
export interface EngineView {
  id: string;
  host: string;
  pid: number;
  /** What it runs (its schema: engines sharing a farm must agree). */
  version: string;
  /** How it runs: run, serve, the desktop app, embedded. */
  kind: string;
  /** When it started (epoch ms, the database server's clock). */
  since: number;
  /** When it last renewed its leases. */
  renewedAt: number;
  /** How long ago that was when read (ms): more than lease_s means it is gone. */
  renewedAgoMs: number;
  /** When it stopped gracefully; null while it runs (or if it vanished without stopping). */
  stoppedAt: number | null;
  /** Renewed within lease_s and not stopped. */
  live: boolean;
  /** Workstations it holds the lease on now. */
  workstations: number;
}

/** `farm.engines`: every engine of the farm, oldest first, and the lease they renew. */
export interface FarmEngines {
  /** 'sqlite': one engine per data folder, no leases (the list is empty). */
  store: 'sqlite' | 'postgres';
  leaseS: number;
  engines: EngineView[];
}

/** On a workstation card of a PostgreSQL farm: the engine that drives it now, and its pin. */
export interface WorkstationDriver {
  /** The engine holding its lease now; null while no engine does (free, or waiting for adoption). */
  engineId: string | null;
  host: string | null;
  /** The engine (id or host) it is pinned to (`workers pin`), or null. */
  pinned: string | null;
}

/** `instances.pin`: pin a workstation (by id or name) to an engine's id or host, or unpin it (null). */
export const pinInputSchema = z.strictObject({
  id: z.string().min(1),
  engine: z.string().trim().min(1).max(300).nullable(),
});
