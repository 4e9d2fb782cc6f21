/**
 * One decision pass's choice (SPEC §3): queued jobs, in dispatch order, to the places that can take
 * them. The places are a free slot (it starts now) and, with prefetch, the place behind what runs
 * on a full workstation (it starts when the first prompt there is expected to end; prefetch.ts) —
 * empty, or held by a waiting job of lower order, which the job displaces. Each job, highest
 * first, gets the place that starts earliest among those it fits, so a lower job never takes a
 * free GPU while a rush job is put behind a running prompt. A job that fits nowhere now does not
 * block the ones behind it, but no job behind it may be queued ahead of it on a workstation it
 * waits for. Works on the pass's snapshots (which it updates as it assigns); touches nothing
 * else — the scheduler claims, reserves and displaces.
 */
import type { JobRow } from '../store/job-rows.js';
import { displaces, mayWaitBehind, placeStartsAt, startsTooSoon, waitsForDisplaced } from './prefetch.js';
import {
  fitsNow,
  fitsWhenOneEnds,
  rankInstances,
  vramNeedGb,
  type InstanceSnapshot,
  type JobSnapshot,
} from './policy.js';

export interface ChoiceDeps {
  prefetch: boolean;
  /** The pass's time (the clock of the snapshots' `freesAt`). */
  now: number;
  /** Jobs whose claim from an earlier pass is not committed yet: skipped. */
  claiming: ReadonlySet<string>;
  /** The instances that have the nodes and models this job's workflow names (none: it waits, blocked-jobs.ts says why). */
  capable(job: JobRow): ReadonlySet<string>;
  snapshot(job: JobRow): JobSnapshot;
  /** Reservations: may this instance take this job? */
  allows(instanceId: string, job: JobSnapshot): boolean;
  /** The job fits nowhere now (reservations.ts may keep an instance for it). */
  unplaced(job: JobRow, snap: JobSnapshot): void;
  /** At most this many assignments in this pass (PLACES_PER_PASS); the rest are the next pass's. Default: no bound. */
  maxAssignments?: number;
}

/**
 * Jobs placed per pass. At a farm's start every GPU is free at once (and, with prefetch, every
 * place behind them): one pass placing 400 jobs read 800 candidates and ranked every workstation
 * for each job, ~100 ms and more of one turn at 200 GPUs. Past this many the pass stops and the
 * next one (the next turn) goes on from the queue's new head, which is what a pass after it
 * would see anyway: the slots just given are held in the snapshots, the jobs in `claiming`.
 */
export const PLACES_PER_PASS = 32;

export interface Assignment {
  job: JobRow;
  instanceId: string;
  snap: JobSnapshot;
}

export interface Displacement {
  instanceId: string;
  instanceName: string;
  /** The attempt of the prompt waiting there, asked to give its place. */
  attemptId: string;
}

export function freeInstances(snaps: ReadonlyMap<string, InstanceSnapshot>): InstanceSnapshot[] {
  return [...snaps.values()].filter((s) => s.running < s.maxConcurrency);
}

/** Full instances where one more prompt may wait on the server, or the waiting one be displaced. */
export function behindInstances(snaps: ReadonlyMap<string, InstanceSnapshot>, prefetch: boolean): InstanceSnapshot[] {
  return prefetch
    ? [...snaps.values()].filter((s) => s.running >= s.maxConcurrency && s.running > 0 && !s.waiting?.displacing)
    : [];
}

/** A place a job could take: a free slot, an empty waiting place, a waiting place to displace, or one being freed for it. */
interface Place {
  inst: InstanceSnapshot;
  kind: 'free' | 'behind' | 'displace' | 'freeing';
  startsAt: number;
}

/** Earliest start first; at the same start a free slot before a waiting place (it needs no queue on the server). */
const KIND_ORDER: Record<Place['kind'], number> = { free: 0, behind: 1, freeing: 2, displace: 3 };

/**
 * The places this job fits, in the order it takes them: a free slot (it starts now), then the
 * waiting places — those on a GPU holding its model first — by when they start; at the same start
 * in rankInstances' order.
 */
export function placesFor(
  job: JobSnapshot,
  snaps: ReadonlyMap<string, InstanceSnapshot>,
  prefetch: boolean,
  now: number,
  allowed: (s: InstanceSnapshot) => boolean,
): Place[] {
  const places: Place[] = [];
  for (const s of freeInstances(snaps))
    if (allowed(s) && fitsNow(job, s)) places.push({ inst: s, kind: 'free', startsAt: now });
  if (prefetch) {
    for (const s of snaps.values()) {
      if (s.running < s.maxConcurrency || s.running === 0 || !allowed(s)) continue;
      const startsAt = placeStartsAt(s, now);
      if (mayWaitBehind(job, s)) places.push({ inst: s, kind: 'behind', startsAt });
      else if (displaces(job, s)) places.push({ inst: s, kind: 'displace', startsAt });
      else if (waitsForDisplaced(job, s)) places.push({ inst: s, kind: 'freeing', startsAt });
    }
  }
  const rank = new Map(
    rankInstances(
      job,
      places.map((p) => p.inst),
    ).map((s, i) => [s.id, i]),
  );
  // Among waiting places, the GPU that holds the job's model first: a reload costs more than
  // the spread of the ends (the model is what is loaded when the place starts: the last one sent).
  const reloads = (p: Place): number =>
    p.kind === 'free' || job.checkpoint === null || p.inst.lastCheckpoint === job.checkpoint ? 0 : 1;
  return places.sort(
    (a, b) =>
      (a.kind === 'free' ? 0 : 1) - (b.kind === 'free' ? 0 : 1) ||
      reloads(a) - reloads(b) ||
      a.startsAt - b.startsAt ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      (rank.get(a.inst.id) ?? 0) - (rank.get(b.inst.id) ?? 0),
  );
}

export function choose(
  snaps: ReadonlyMap<string, InstanceSnapshot>,
  queue: Iterable<JobRow>,
  d: ChoiceDeps,
): { assignments: Assignment[]; displacements: Displacement[]; capped: boolean } {
  const free = () => freeInstances(snaps);
  const behind = () => behindInstances(snaps, d.prefetch);
  /** Instances a job ahead in the order waits for (it could not wait there itself): none behind it may take their waiting place. */
  const heldFor = new Set<string>();
  /** When the jobs placed so far start: in this pass, and those sent by an earlier one that have not started yet (now, at the latest). */
  const placedAhead: { priority: number; startsAt: number; instanceId: string }[] = [];
  for (const s of snaps.values())
    if (s.startingPriority !== null && s.startingPriority !== undefined)
      placedAhead.push({ priority: s.startingPriority, startsAt: d.now, instanceId: s.id });
  const assignments: Assignment[] = [];
  const displacements: Displacement[] = [];
  for (const job of queue) {
    if (d.maxAssignments !== undefined && assignments.length >= d.maxAssignments)
      return { assignments, displacements, capped: true };
    // Jobs come in priority order: once none can take a slot or a waiting place, or displace a
    // lower-priority waiting prompt, none after it can either.
    const open = free().length > 0 || behind().some((s) => !s.waiting);
    if (!open && !behind().some((s) => s.waiting && job.priority > s.waiting.priority)) break;
    if (d.claiming.has(job.id)) continue;
    const capable = d.capable(job);
    if (capable.size === 0) continue;
    const snap = d.snapshot(job);
    const allowed = (s: InstanceSnapshot) =>
      capable.has(s.id) && d.allows(s.id, snap) && !(heldFor.has(s.id) && s.running >= s.maxConcurrency);
    // A job of lower priority than one placed in this pass must not take a waiting place on
    // another GPU that starts before that one does (or too near to tell): it would start first.
    const places = placesFor(snap, snaps, d.prefetch, d.now, allowed).filter(
      (p) =>
        p.kind === 'free' ||
        !placedAhead.some(
          (a) =>
            a.priority > snap.priority && a.instanceId !== p.inst.id && startsTooSoon(p.startsAt, a.startsAt, d.now),
        ),
    );
    const place = places[0];
    if (place?.kind === 'free') {
      const chosen = place.inst;
      chosen.running++;
      const need = vramNeedGb(snap, chosen);
      chosen.runningVramGb += need;
      chosen.largestRunningVramGb = Math.max(chosen.largestRunningVramGb, need);
      chosen.runningPriority = Math.min(chosen.runningPriority ?? snap.priority, snap.priority);
      chosen.serverQueue++;
      assignments.push({ job, instanceId: chosen.id, snap });
      placedAhead.push({ priority: snap.priority, startsAt: place.startsAt, instanceId: place.inst.id });
      continue;
    }
    // No free slot: every lower prompt waiting on a server where this job could run, whose place
    // starts before this job would, gives its place — else it would start first. Waiting for a slot
    // (it is not tied behind one prompt), the job starts at the first that frees: any of them could.
    const ownStart = place?.kind === 'behind' ? place.startsAt : Number.POSITIVE_INFINITY;
    for (const p of places) {
      if (p.kind !== 'displace' || !p.inst.waiting || !startsTooSoon(p.startsAt, ownStart, d.now)) continue;
      p.inst.waiting.displacing = true;
      displacements.push({ instanceId: p.inst.id, instanceName: p.inst.name, attemptId: p.inst.waiting.attemptId });
    }
    if (place?.kind === 'behind') {
      const chosen = place.inst;
      chosen.waiting = { attemptId: '', priority: snap.priority, rank: job.rank, displacing: false };
      chosen.lastCheckpoint = snap.checkpoint;
      chosen.serverQueue++;
      assignments.push({ job, instanceId: chosen.id, snap });
      placedAhead.push({ priority: snap.priority, startsAt: place.startsAt, instanceId: place.inst.id });
      continue;
    }
    // It waits (for a place being freed for it, or for a slot): a job behind it must not be queued
    // ahead of it on a workstation where it could run once one prompt there ends.
    for (const s of behind())
      if (capable.has(s.id) && d.allows(s.id, snap) && fitsWhenOneEnds(snap, s)) heldFor.add(s.id);
    if (place) heldFor.add(place.inst.id);
    if (!place) d.unplaced(job, snap);
  }
  return { assignments, displacements, capped: false };
}
