/**
 * The workstations as the scheduler sees them at run time: admin state from the store, health
 * from probes (/system_stats and /queue every few seconds, each with a short timeout), node lists
 * from /object_info (fetched when an instance first answers and again after it comes back),
 * what Shotfarm runs there now, and quarantine after instance-level failures in a row.
 * Changes are written to the instances table and published as `instance.changed`.
 */
import type { InstanceHealth, InstanceView } from '../../../../shared/domain.js';
import type { Clock, Timers } from '../../clock.js';
import { ComfyClient } from '../../comfy/client.js';
import { sleepOn } from '../../comfy/backoff.js';
import { StationSocket } from '../../comfy/station-socket.js';
import { randomBytes } from 'node:crypto';
import { describeFailure, settle } from '../../comfy/observation.js';
import type { ObjectInfo } from '../../comfy/schemas.js';
import type { EventBus } from '../../event-bus.js';
import { probeInstance, type ProbeResult } from '../../health/probe.js';
import type { CommitBatch } from '../../store/commit-batch.js';
import type { Db } from '../../store/database.js';
import {
  comfyInstanceRows,
  instanceRow,
  isSilent,
  persistRuntime,
  toInstanceView,
  type ComfyInstanceRow,
} from '../../store/instance-store.js';
import type { SchedulerConfig } from '../../settings/farm-config.js';
import { storedFormOf, storeNodeList, type StoredForm } from './node-lists.js';
import { ObjectInfoCache } from '../../comfy/object-info-cache.js';
import type { InstanceSnapshot } from './instance-snapshot.js';
import type { InstanceFacts } from '../../views/wait-reasons.js';
import { firstExpectedEnd, RunLengths, type RunClock } from './run-lengths.js';

/** What the registry tells and asks the contact watch (contact-watch.ts). */
export interface ContactPort {
  probed(instanceId: string, answered: boolean): void;
  isSilent(instanceId: string): boolean;
  /** When the workstation last answered anything in this run (a probe, a poll, a WebSocket frame), or null. */
  lastAnswerOf(instanceId: string): number | null;
}

/**
 * A busy workstation whose socket spoke within the last probe interval is alive: its probe waits,
 * at most this many intervals in a row, so its VRAM and others' prompts are still read every few.
 * At 200 GPUs the probes (two requests each, every interval) were the engine's largest cost.
 */
export const BUSY_PROBE_SKIPS = 4;

/** First probes sent per turn of the event loop at a farm's start (probeInGroups): four turns at 200 workstations. */
export const FIRST_PROBE_GROUP = 50;

/** An attempt holding a slot (or the waiting place) on an instance. */
export interface Occupant extends RunClock {
  jobId: string;
  vramGb: number;
  priority: number;
  rank: number;
}

export interface InstanceRuntime {
  row: ComfyInstanceRow;
  client: ComfyClient;
  probe: ProbeResult | null;
  lastOkProbe: (ProbeResult & { ok: true }) | null;
  /** When it last answered a probe in this run (ms). */
  lastAnswerAt: number | null;
  /** When the last probe was made, answered or not. */
  probedAt: number | null;
  probeFailures: number;
  health: InstanceHealth;
  objectInfo: ObjectInfo | null;
  objectInfoPending: boolean;
  /** attemptId → what runs there (for slots and VRAM beside running jobs). */
  running: Map<string, Occupant>;
  /** The one prompt queued on the server behind what runs there (prefetch), not started yet. */
  waiting: (Occupant & { attemptId: string }) | null;
  /** A higher-priority job asked the waiting prompt to give its place; until it has answered. */
  displacing: boolean;
  /** How long prompts run here (start to end): when the running ones are expected to end. */
  runLengths: RunLengths;
  /** The workstation's one WebSocket, opened when it first answers; every attempt there subscribes to it. */
  socket: StationSocket | null;
  lastCheckpoint: string | null;
  /** The attempt dispatched there most recently: only its end may say which model is loaded. */
  lastStartedAttempt: string | null;
  failuresInRow: number;
  quarantinedUntil: number | null;
  /** How many of our own prompts were there when the last probe answered (to count only others'). */
  ourAtProbe: number;
  timer: unknown;
  lastPersistAt: number;
  /** Probe rounds in a row left out because the workstation was busy and heard from (BUSY_PROBE_SKIPS). */
  probesSkipped: number;
  /** Its first probe of this run has gone out (a farm's start sends them in groups: probeInGroups). */
  probeSent: boolean;
}

/** The frames an attempt reads (attempt-follow.ts, prompt-end.ts); the rest are dropped unparsed. */
const FOLLOWED_TYPES: ReadonlySet<string> = new Set([
  'status',
  'execution_start',
  'executing',
  'progress',
  'execution_success',
  'execution_error',
  'execution_interrupted',
]);

/** A rough speed order of common GPUs for the last tie-break; unknown cards rank by VRAM. */
const GPU_SPEED: [RegExp, number][] = [
  [/B200|H200/i, 10],
  [/H100/i, 9],
  [/5090/i, 8.5],
  [/A100/i, 8],
  [/4090/i, 7.5],
  [/L40/i, 7],
  [/6000 Ada/i, 7],
  [/4080/i, 6],
  [/3090/i, 5],
  [/A6000/i, 5],
  [/4070/i, 4.5],
  [/A10\b/i, 4],
  [/3080/i, 4],
  [/T4\b/i, 2],
];

function gpuSpeed(name: string | null, totalBytes: number | null): number {
  for (const [re, s] of GPU_SPEED) if (name && re.test(name)) return s;
  return totalBytes ? totalBytes / 1024 ** 3 / 10 : 0;
}

/** What a snapshot reads of the stored row's JSON columns, parsed once per row object (rowFields). */
interface RowFields {
  tags: string[];
  vramOverrides: Record<string, number>;
  storedVramBytes: number | null;
}

export class InstanceRegistry {
  private readonly map = new Map<string, InstanceRuntime>();
  /**
   * Keyed by the row object, which is replaced (never changed in place) whenever the row is
   * reloaded or edited: every dispatch pass and every blocked-jobs step snapshots every
   * workstation, and re-parsing three JSON columns each time was most of a step's facts at 200.
   */
  private readonly fields = new WeakMap<ComfyInstanceRow, RowFields>();
  /** Node lists by content: workstations that send the same list share one object (object-info-cache.ts). */
  readonly objectInfos = new ObjectInfoCache();
  /** Each list's stored form, worked out once per list object (the lists are shared, and never changed in place). */
  private readonly storedForms = new WeakMap<ObjectInfo, StoredForm>();
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly events: EventBus,
    private readonly config: SchedulerConfig,
    /** Called when something changed that may allow a dispatch (an instance became healthy…). */
    private readonly onChange: () => void,
    /** Contact as the attempts see it too: told every probe's answer or silence, asked whether it is silent now. */
    private readonly contact: ContactPort = { probed: () => {}, isSilent: () => false, lastAnswerOf: () => null },
    /** A probe's bookkeeping failed (the store could not take its write): said here, and the probing goes on. */
    private readonly onError: (what: string, err: unknown) => void = () => {},
    /** Reconnect jitter of the workstations' sockets. */
    private readonly random: () => number = Math.random,
    /**
     * The tick's commit batch: health and node-list writes go there, so a burst (200 workstations
     * answering their first probe, a wave of prompts starting) is one fsync, not one per workstation.
     */
    private readonly batch: Pick<CommitBatch, 'add'> = { add: async (fn) => fn() },
  ) {}

  start(): void {
    this.stopped = false;
    // RunPod endpoints are the cloud pool's (cloud/runpod-pool.ts): no ComfyUI server to probe.
    const added = comfyInstanceRows(this.db).map((row) => this.add(row, false));
    this.probeInGroups(added);
  }

  /**
   * The first probes of a farm's start, FIRST_PROBE_GROUP per turn of the event loop: each opens
   * a connection, and its answer a socket and a node list. At 200 workstations all in one turn
   * they held the loop for hundreds of ms and their answers came back in one wave; in groups the
   * answers that arrive between groups are handled as they come. Every workstation is still probed
   * at start (at 200, the last group three turns later). Groups of 16 were tried: under load the
   * answers to the first groups (sockets, node lists, the first dispatches) ran before the later
   * groups went out, and every GPU was busy 1.6–3.7 s later than with all at once (two pairs, load 8–12).
   */
  private probeInGroups(rts: readonly InstanceRuntime[]): void {
    if (this.stopped || rts.length === 0) return;
    // One probed already (an attempt recovered there asked for it) is not probed twice.
    for (const rt of rts.slice(0, FIRST_PROBE_GROUP)) if (!rt.probeSent) void this.probe(rt);
    const rest = rts.slice(FIRST_PROBE_GROUP);
    if (rest.length) setImmediate(() => this.probeInGroups(rest));
  }

  stop(): void {
    this.stopped = true;
    for (const rt of this.map.values()) {
      this.timers.clearTimeout(rt.timer);
      this.closeSocket(rt);
    }
  }

  /**
   * The workstation's socket, opened at its first answer (or by the first attempt followed there:
   * a recovered one may start before any probe answered) and kept for as long as it is registered:
   * a fresh client id per connection (the reconnect trap, protocol §3), backoff between tries.
   */
  socketOf(rt: InstanceRuntime): StationSocket {
    this.openSocket(rt);
    return rt.socket as StationSocket;
  }

  private openSocket(rt: InstanceRuntime): void {
    if (rt.socket && !rt.socket.isClosed) return;
    const label = rt.row.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);
    rt.socket = new StationSocket({
      baseUrl: rt.row.url,
      newClientId: () => `sf-${label}-${randomBytes(6).toString('hex')}`,
      now: () => this.clock.now(),
      timers: this.timers,
      sleep: sleepOn(this.timers),
      random: this.random,
      types: FOLLOWED_TYPES,
    });
  }

  private closeSocket(rt: InstanceRuntime): void {
    rt.socket?.close();
    rt.socket = null;
  }

  get(id: string): InstanceRuntime | undefined {
    return this.map.get(id);
  }

  all(): InstanceRuntime[] {
    return [...this.map.values()];
  }

  private add(row: ComfyInstanceRow, probeNow = true): InstanceRuntime {
    const rt: InstanceRuntime = {
      row,
      client: new ComfyClient(row.url, { timeoutMs: this.config.requestTimeoutMs }),
      probe: null,
      lastOkProbe: null,
      lastAnswerAt: null,
      probedAt: null,
      probeFailures: 0,
      health: 'unknown',
      objectInfo: null,
      objectInfoPending: false,
      running: new Map(),
      waiting: null,
      displacing: false,
      runLengths: new RunLengths(),
      socket: null,
      lastCheckpoint: row.last_checkpoint,
      lastStartedAttempt: null,
      failuresInRow: row.consecutive_failures,
      quarantinedUntil: row.quarantined_until,
      ourAtProbe: 0,
      timer: null,
      lastPersistAt: 0,
      probesSkipped: 0,
      probeSent: false,
    };
    this.map.set(row.id, rt);
    if (probeNow) void this.probe(rt);
    return rt;
  }

  /**
   * An instance was added, edited, drained, disabled or removed through the API: reload its row.
   * (Reached through Scheduler.instanceChanged — the registry's own `instance.changed` events must not loop back.)
   */
  refresh(id: string): void {
    if (this.stopped) return;
    const row = instanceRow(this.db, id);
    const rt = this.map.get(id);
    if (row?.kind !== 'comfyui') return this.remove(id);
    if (!rt) {
      this.add(row);
      return;
    }
    const urlChanged = rt.row.url !== row.url;
    rt.row = row;
    if (urlChanged) {
      rt.client = new ComfyClient(row.url, { timeoutMs: this.config.requestTimeoutMs });
      this.closeSocket(rt);
      rt.objectInfo = null;
      rt.probe = null;
      rt.lastOkProbe = null;
      this.timers.clearTimeout(rt.timer);
      void this.probe(rt);
    }
    this.updateHealth(rt, true);
    this.onChange();
  }

  /**
   * A probe made outside the timer (Free VRAM's look after): the card and the fit checks use it now,
   * and the row (which the handler wrote) is reloaded so a later write does not bring back the old figures.
   */
  heard(id: string, result: ProbeResult): void {
    const rt = this.map.get(id);
    const row = instanceRow(this.db, id);
    if (this.stopped || !rt || row?.kind !== 'comfyui') return;
    rt.row = row;
    rt.probe = result;
    rt.probedAt = this.clock.now();
    if (result.ok) {
      rt.lastOkProbe = result;
      rt.lastAnswerAt = rt.probedAt;
    }
    this.updateHealth(rt, true);
  }

  private remove(id: string): void {
    const rt = this.map.get(id);
    if (!rt) return;
    this.timers.clearTimeout(rt.timer);
    this.closeSocket(rt);
    this.map.delete(id);
  }

  /**
   * Probes now (also used to re-check quickly after a failure). Never rejects: a failure to record
   * what the probe found (a locked or full database) is the farm's to hold on, and the next probe
   * is armed whatever happened.
   */
  async probe(rt: InstanceRuntime, fromTimer = false): Promise<void> {
    if (this.stopped || this.map.get(rt.row.id) !== rt) return;
    this.timers.clearTimeout(rt.timer);
    rt.probeSent = true;
    try {
      // Only the timer's round may wait; a probe asked for (after a failure, a change) goes out.
      if (fromTimer && this.probeMayWait(rt)) rt.probesSkipped++;
      else {
        rt.probesSkipped = 0;
        await this.probeOnce(rt);
      }
    } catch (err) {
      this.onError(`probing ${rt.row.name}`, err);
    }
    if (this.stopped || this.map.get(rt.row.id) !== rt) return;
    this.timers.clearTimeout(rt.timer);
    // ±10 % so workstations added together (a farm's start) do not all probe in the same tick forever after.
    const interval = this.config.probeIntervalMs * (0.9 + 0.2 * this.random());
    rt.timer = this.timers.setTimeout(() => void this.probe(rt, true), interval);
  }

  /** Busy with our prompts, answered a probe before, and its socket spoke within the interval: nothing a probe would add now. */
  private probeMayWait(rt: InstanceRuntime): boolean {
    if (rt.running.size === 0 || rt.lastOkProbe === null || rt.probesSkipped >= BUSY_PROBE_SKIPS) return false;
    if (this.contact.isSilent(rt.row.id)) return false;
    const heard = this.contact.lastAnswerOf(rt.row.id);
    return heard !== null && this.clock.now() - heard < this.config.probeIntervalMs;
  }

  private async probeOnce(rt: InstanceRuntime): Promise<void> {
    const result = await probeInstance(rt.row.url, this.config.probeTimeoutMs, () => this.clock.now());
    if (this.stopped || this.map.get(rt.row.id) !== rt) return;
    const wasDispatchable = this.dispatchable(rt);
    rt.probe = result;
    rt.probedAt = this.clock.now();
    if (result.ok) {
      rt.ourAtProbe = rt.running.size + (rt.waiting ? 1 : 0);
      const cameBack = rt.probeFailures >= this.config.unhealthyAfter;
      rt.probeFailures = 0;
      rt.lastOkProbe = result;
      rt.lastAnswerAt = this.clock.now();
      this.openSocket(rt);
      if (!rt.objectInfo || cameBack) void this.loadObjectInfo(rt);
    } else {
      rt.probeFailures++;
    }
    this.updateHealth(rt, false);
    this.contact.probed(rt.row.id, result.ok);
    if (this.dispatchable(rt) && !wasDispatchable) this.onChange();
  }

  private async loadObjectInfo(rt: InstanceRuntime): Promise<void> {
    if (rt.objectInfoPending) return;
    rt.objectInfoPending = true;
    const r = await settle(() =>
      rt.client.getObjectInfo(
        { timeoutMs: this.config.objectInfoTimeoutMs, maxBytes: this.config.objectInfoMaxBytes },
        this.objectInfos,
      ),
    );
    rt.objectInfoPending = false;
    if (r.ok) {
      rt.objectInfo = r.value;
      this.persistNodeList(rt, r.value);
      this.onChange();
    } else {
      rt.row = { ...rt.row, last_error: `/object_info: ${describeFailure(r.failure)}` };
    }
  }

  /**
   * What the list offers is stored (when it changed), so an import checked without a running farm
   * sees it too. Losing that write costs only that check, never the farm: it is logged, not thrown.
   */
  private persistNodeList(rt: InstanceRuntime, info: ObjectInfo): void {
    const now = this.clock.now();
    // Worked out here, outside the commit's transaction, and once per shared list.
    const stored = this.storedForms.get(info) ?? storedFormOf(info);
    this.storedForms.set(info, stored);
    this.batch
      .add(() => storeNodeList(this.db, rt.row.id, stored, now))
      .catch((err: unknown) => {
        rt.row = { ...rt.row, last_error: `storing the node list: ${(err as Error).message}` };
      });
  }

  isQuarantined(rt: InstanceRuntime): boolean {
    return rt.quarantinedUntil !== null && rt.quarantinedUntil > this.clock.now();
  }

  /**
   * Answering, active, not quarantined, node list known: may be given new work (slots aside). Not
   * while its last request went unanswered: the retry of an attempt just lost there must not go back.
   */
  dispatchable(rt: InstanceRuntime): boolean {
    return (
      rt.row.admin_state === 'active' &&
      rt.lastOkProbe !== null &&
      rt.probeFailures < this.config.unhealthyAfter &&
      !this.isQuarantined(rt) &&
      rt.objectInfo !== null &&
      !this.contact.isSilent(rt.row.id)
    );
  }

  private deriveHealth(rt: InstanceRuntime): InstanceHealth {
    if (rt.row.admin_state === 'disabled') return 'disabled';
    if (this.isQuarantined(rt)) return 'quarantined';
    if (rt.probe === null) return 'unknown';
    if (rt.probeFailures >= this.config.offlineAfter) return 'offline';
    if (rt.probeFailures >= this.config.unhealthyAfter) return 'unhealthy';
    if (rt.row.admin_state === 'draining') return 'draining';
    const q = rt.lastOkProbe;
    return rt.running.size > 0 || (q !== null && q.queueRunning + q.queuePending > 0) ? 'busy' : 'idle';
  }

  /**
   * Recomputes health. The row is written only when something an operator sees changed (health,
   * quarantine, whether it answers: the card's figures are unknown from its first silent probe),
   * or every 10 s for the probe time — not once per dispatched prompt, which would cost a
   * synchronous commit per job. `announce` publishes the card even without a write (what
   * runs there changed).
   */
  updateHealth(rt: InstanceRuntime, announce: boolean): void {
    const health = this.deriveHealth(rt);
    const now = this.clock.now();
    const silenceChanged = rt.probe !== null && !rt.probe.ok !== isSilent(rt.row);
    const changed =
      health !== rt.health ||
      rt.quarantinedUntil !== rt.row.quarantined_until ||
      rt.lastCheckpoint !== rt.row.last_checkpoint ||
      silenceChanged;
    rt.health = health;
    const persist = changed || now - rt.lastPersistAt >= 10_000;
    if (persist) {
      rt.lastPersistAt = now;
      const ok = rt.lastOkProbe;
      const facts = {
        id: rt.row.id,
        health,
        gpu_name: ok?.gpuName ?? null,
        vram_json: ok?.vram ? JSON.stringify(ok.vram) : null,
        comfy_version: ok?.comfyVersion ?? null,
        queue_length: ok ? ok.queueRunning + ok.queuePending : null,
        last_probe_at: rt.probe ? rt.probedAt : null,
        last_answer_at: rt.lastAnswerAt,
        last_error: rt.probe && !rt.probe.ok ? rt.probe.error : null,
        consecutive_failures: rt.failuresInRow,
        quarantined_until: rt.quarantinedUntil,
        last_checkpoint: rt.lastCheckpoint,
        now,
      };
      // The card is announced once its row is stored (the row read back in the same batch).
      this.batch
        .add(() => persistRuntime(this.db, facts))
        .then(
          (row) => {
            if (this.map.get(facts.id) !== rt) return;
            if (row?.kind === 'comfyui') rt.row = row;
            this.events.emit('instance.changed', { instance: this.view(rt) });
          },
          (err: unknown) => this.onError(`recording the health of ${rt.row.name}`, err),
        );
      return;
    }
    if (announce) this.events.emit('instance.changed', { instance: this.view(rt) });
  }

  /** The card, with what runs there from memory (not a query per card: cards go out at every dispatch). */
  view(rt: InstanceRuntime): InstanceView {
    const jobs = [...rt.running.values()].map((o) => o.jobId);
    if (rt.waiting) jobs.push(rt.waiting.jobId);
    return toInstanceView(this.db, rt.row, jobs);
  }

  private rowFields(row: ComfyInstanceRow): RowFields {
    let f = this.fields.get(row);
    if (!f) {
      f = {
        tags: JSON.parse(row.tags_json) as string[],
        vramOverrides: JSON.parse(row.vram_overrides_json) as Record<string, number>,
        storedVramBytes: row.vram_json ? (JSON.parse(row.vram_json) as { totalBytes: number }).totalBytes : null,
      };
      this.fields.set(row, f);
    }
    return f;
  }

  snapshot(rt: InstanceRuntime): InstanceSnapshot {
    const ok = rt.lastOkProbe;
    const fields = this.rowFields(rt.row);
    let runningVramGb = 0;
    let largestRunningVramGb = 0;
    let runningPriority: number | null = null;
    let startingPriority: number | null = null;
    for (const r of rt.running.values()) {
      if (r.startedAt === null) startingPriority = Math.max(startingPriority ?? r.priority, r.priority);
      runningVramGb += r.vramGb;
      largestRunningVramGb = Math.max(largestRunningVramGb, r.vramGb);
      runningPriority = runningPriority === null ? r.priority : Math.min(runningPriority, r.priority);
    }
    return {
      id: rt.row.id,
      name: rt.row.name,
      tags: fields.tags,
      maxConcurrency: rt.row.max_concurrency,
      running: rt.running.size,
      runningVramGb,
      largestRunningVramGb,
      totalVramBytes: ok?.vram?.totalBytes ?? null,
      gpuName: ok?.gpuName ?? rt.row.gpu_name,
      otherVramBytes: ok?.vram?.otherBytes ?? 0,
      // Other clients' prompts only: ours are counted in `running`, and the probe's count of ours is
      // the one from when it answered (ours change faster than probes come).
      serverQueue: ok ? Math.max(0, ok.queueRunning + ok.queuePending - rt.ourAtProbe) : 0,
      lastCheckpoint: rt.lastCheckpoint,
      vramOverrides: fields.vramOverrides,
      speed: gpuSpeed(ok?.gpuName ?? rt.row.gpu_name, ok?.vram?.totalBytes ?? null),
      runningPriority,
      waiting: rt.waiting
        ? {
            attemptId: rt.waiting.attemptId,
            priority: rt.waiting.priority,
            rank: rt.waiting.rank,
            displacing: rt.displacing,
          }
        : null,
      freesAt: firstExpectedEnd(rt.running.values(), rt.runLengths.typical()),
      startingPriority,
    };
  }

  /**
   * What "why is this job waiting" needs to know of this instance; its capability problems depend
   * on the job and are the caller's, as is the reservation. The VRAM total falls back to the stored
   * card, so a server that went away still says whether it could ever take the job.
   */
  facts(rt: InstanceRuntime, reservedFor: InstanceFacts['reservedFor']): InstanceFacts {
    const snap = this.snapshot(rt);
    return {
      ...snap,
      totalVramBytes: snap.totalVramBytes ?? this.rowFields(rt.row).storedVramBytes,
      adminState: rt.row.admin_state,
      health: rt.health,
      capabilityProblems: null,
      nodeListLoaded: rt.objectInfo !== null,
      reservedFor,
      quarantinedUntil: rt.quarantinedUntil,
      lastAnswerAt: rt.lastAnswerAt,
      lastError: rt.probe && !rt.probe.ok ? rt.probe.error : null,
    };
  }

  /**
   * A prompt was dispatched there. The checkpoint it loads becomes the instance's "last loaded"
   * now, not when it completes: the next decision may come before that (the slot is freed while
   * outputs are collected), and model affinity must already see it.
   */
  attemptStarted(
    instanceId: string,
    attemptId: string,
    jobId: string,
    vramGb: number,
    checkpoint: string | null = null,
    order = { priority: 0, rank: 0 },
  ): void {
    const rt = this.map.get(instanceId);
    if (!rt) return;
    const occupant = {
      jobId,
      vramGb,
      priority: order.priority,
      rank: order.rank,
      since: this.clock.now(),
      startedAt: null,
    };
    // Every slot taken: this one waits on the server behind them (prefetch, or a recovered pair).
    if (rt.running.size >= rt.row.max_concurrency && rt.waiting === null) rt.waiting = { attemptId, ...occupant };
    else rt.running.set(attemptId, occupant);
    rt.lastStartedAttempt = attemptId;
    if (checkpoint) rt.lastCheckpoint = checkpoint;
    // Forced: the card shows what runs there now, even when the health word stays "busy".
    this.updateHealth(rt, true);
  }

  /**
   * The prompt is done on the server (its success message came, or its history entry is read): its
   * GPU is free for the next prompt while this attempt's outputs are still being collected. Called
   * at both; the second does nothing. Outcome bookkeeping follows in attemptEnded.
   */
  releaseSlot(instanceId: string, attemptId: string): void {
    const rt = this.map.get(instanceId);
    const ended = rt?.running.get(attemptId);
    if (!rt || !ended || !rt.running.delete(attemptId)) return;
    // A prompt that ran to its end: how long the next ones there will probably run.
    if (ended.startedAt !== null) rt.runLengths.add(this.clock.now() - ended.startedAt);
    this.promoteWaiting(rt);
    this.onChange();
  }

  /** A slot freed: the prompt waiting behind takes it (the server has started it, or is about to). */
  private promoteWaiting(rt: InstanceRuntime): void {
    const w = rt.waiting;
    if (!w || rt.running.size >= rt.row.max_concurrency) return;
    rt.waiting = null;
    rt.displacing = false;
    rt.running.set(w.attemptId, {
      jobId: w.jobId,
      vramGb: w.vramGb,
      priority: w.priority,
      rank: w.rank,
      since: this.clock.now(),
      startedAt: null,
    });
  }

  /** The server started executing the attempt's prompt (`execution_start`): its expected end counts from now. */
  promptStarted(instanceId: string, attemptId: string): void {
    const o = this.map.get(instanceId)?.running.get(attemptId);
    if (o) o.startedAt ??= this.clock.now();
  }

  /** A slot held for a claim that is now committed (its runner takes it over) or refused: freed quietly. */
  unreserve(instanceId: string, placeholder: string): void {
    const rt = this.map.get(instanceId);
    if (!rt) return;
    rt.running.delete(placeholder);
    if (rt.waiting?.attemptId === placeholder) rt.waiting = null;
  }

  /** Whether the attempt is the one waiting on the server behind the running prompt. */
  isWaiting(instanceId: string, attemptId: string): boolean {
    return this.map.get(instanceId)?.waiting?.attemptId === attemptId;
  }

  /** A displacement of the waiting prompt was asked for, or has been answered (false). */
  setDisplacing(instanceId: string, on: boolean): void {
    const rt = this.map.get(instanceId);
    if (rt) rt.displacing = on;
  }

  /**
   * An attempt ended. Instance-level failures in a row (transport errors, lost contact) put the
   * instance in quarantine for a while — a render farm's blocklist; any success resets the count.
   * An unfit instance (one that cannot run our prompts at all) is quarantined at the first.
   */
  attemptEnded(
    instanceId: string,
    attemptId: string,
    result: 'ok' | 'job_failure' | 'instance_failure' | 'instance_unfit',
    checkpoint: string | null,
  ): void {
    const rt = this.map.get(instanceId);
    if (!rt) return;
    rt.running.delete(attemptId);
    if (rt.waiting?.attemptId === attemptId) {
      rt.waiting = null;
      rt.displacing = false;
    }
    this.promoteWaiting(rt);
    if (result === 'ok') {
      rt.failuresInRow = 0;
      // An attempt collected after the next one was dispatched (the slot is freed before the
      // download) must not put its older model back as "loaded there".
      if (checkpoint && attemptId === rt.lastStartedAttempt) rt.lastCheckpoint = checkpoint;
    } else if (result === 'instance_failure' || result === 'instance_unfit') {
      rt.failuresInRow++;
      // Unfit (it ignores our prompt ids): the next attempt would fail the same way, so at once.
      if (result === 'instance_unfit' || rt.failuresInRow >= this.config.quarantineAfter) {
        rt.quarantinedUntil = this.clock.now() + this.config.quarantineMs;
        rt.failuresInRow = 0;
        this.timers.setTimeout(() => {
          try {
            this.updateHealth(rt, true);
          } catch (err) {
            this.onError(`ending the quarantine of ${rt.row.name}`, err);
          }
          this.onChange();
        }, this.config.quarantineMs + 10);
      }
      // Re-probe at once: the failure may mean the server is gone, and dispatch should know.
      void this.probe(rt);
    }
    this.updateHealth(rt, true);
  }
}
