/**
 * The RunPod endpoints of the farm (kind 'runpod' workstations), a WorkerPool (../worker-pool.ts)
 * beside the LAN: their health (/health; a rejected key makes one `unhealthy`, "API key rejected"),
 * their slots, and the dispatch pass the scheduler calls after the LAN's — queued jobs the LAN did
 * not take go to an endpoint when the burst policy allows it (burst-policy.ts), claimed through the
 * one claim path (../attempt/claim.ts) — and the attempts running there (runpod-runner.ts):
 * recovered at start, cancelled, stopped or detached with the farm.
 *
 * Several engines on one PostgreSQL farm (issue 27): an endpoint is leased like a LAN workstation
 * (lock/lease-manager.ts). Only the engine holding its lease dispatches to it and follows its
 * attempts; every write they make is fenced on the lease's epoch (../attempt/lease-fence.ts); an
 * engine that takes the lease over recovers the attempts left open there by their RunPod job ids
 * (/status, never a second /run). The day's spend is read from the store: farm-wide.
 */
import { isHealthy, type InstanceView, type RunpodHealthView } from '../../../../shared/domain.js';
import { PRIORITY_VALUE } from '../../../../shared/priorities.js';
import { totalSpendSince, type AttemptRow } from '../../store/attempt-store.js';
import {
  runpodInstanceRows,
  setEndpointHealth,
  toInstanceView,
  type RunpodInstanceRow,
} from '../../store/instance-store.js';
import type { JobRow } from '../../store/job-rows.js';
import { jobRow } from '../../store/job-store.js';
import type { StoredTemplate } from '../../store/template-store.js';
import { claimJob } from '../attempt/claim.js';
import type { ConcludeDeps } from '../attempt/deps.js';
import { fencedBatch, isLeaseLost, type FarmLeases, type LeaseStamp } from '../attempt/lease-fence.js';
import type { PoolPass, PoolWait, WorkerPool } from '../worker-pool.js';
import { KEY_WITHHELD, keyMayGoTo } from './api-base.js';
import { burstDecision } from './burst-policy.js';
import { burstWaitOf, dispatchableWaitS, endpointFits, jobDispatchableSince, type BurstJob } from './burst-wait.js';
import { RunpodClient, RunpodHttpError } from './runpod-client.js';
import { asksHealthHere, withStoredHealth } from './health-holder.js';
import { healthView } from './runpod-health.js';
import { utcDayStart } from './runpod-cost.js';
import { RunpodRunner } from './runpod-runner.js';

export interface RunpodPoolDeps extends ConcludeDeps {
  /** A job's template (the farm's cache). */
  template: (id: number) => StoredTemplate;
  /** The RunPod API key (RUNPOD_API_KEY, else the encrypted setting); read at every request. */
  apiKey: () => string | null;
  /** A runner ended: the scheduler re-arms its retry timer and decides again. */
  ended: () => void;
  /** Something changed (an endpoint healthy again, a burst wait over): the scheduler decides again. */
  kick: () => void;
  /** When the farm last became able to dispatch (start, resume, a storage hold's end), null while paused, stopped or held: burst waits count from it. */
  dispatchingSince: () => number | null;
  /**
   * Several engines on one PostgreSQL farm: the leases this engine holds — it dispatches only to
   * the endpoints it leases and fences its attempts' writes on them. Null or absent: no leases
   * (SQLite, one engine): every endpoint is this engine's.
   */
  leases?: FarmLeases | null;
}

interface Endpoint {
  row: RunpodInstanceRow;
  client: RunpodClient;
  running: Map<string, RunpodRunner>;
  /** Claims not committed yet: their slots are taken already. */
  held: Set<string>;
  /** What its last /health answer said (its card shows it), null before one. */
  lastHealth: RunpodHealthView | null;
}

export class RunpodPool implements WorkerPool {
  readonly kind = 'runpod' as const;
  private readonly endpoints = new Map<string, Endpoint>();
  private healthTimer: unknown = null;
  private burstTimer: unknown = null;
  private burstTimerAt: number | null = null;
  private running = false;
  /** Why no endpoint took a job at the last pass (shown on the cards), or null. */
  private burstWait: string | null = null;

  constructor(private readonly d: RunpodPoolDeps) {}

  private kick(): void {
    this.d.kick();
  }

  start(): void {
    this.running = true;
    for (const row of runpodInstanceRows(this.d.db)) this.add(row);
    this.checkHealth();
  }

  owns(instanceId: string | null): boolean {
    return instanceId !== null && this.endpoints.has(instanceId);
  }

  get size(): number {
    return [...this.endpoints.values()].reduce((n, e) => n + e.running.size, 0);
  }

  private add(row: RunpodInstanceRow): void {
    const prev = this.endpoints.get(row.id);
    // The key goes only to RunPod's API or a base chosen on the farm host (cloud/api-base.ts).
    const keyGoes = keyMayGoTo(row);
    const client = new RunpodClient({
      apiBase: row.runpod.apiBase,
      endpointId: row.runpod.endpointId,
      apiKey: keyGoes ? this.d.apiKey : () => null,
      timeoutMs: this.d.config.requestTimeoutMs,
      ...(keyGoes ? {} : { noKeyWords: KEY_WITHHELD }),
    });
    this.endpoints.set(row.id, {
      row,
      client,
      running: prev?.running ?? new Map(),
      held: prev?.held ?? new Set(),
      lastHealth: prev?.lastHealth ?? null,
    });
  }

  /** An instance was added, edited or removed: reload it if it is an endpoint. */
  refresh(id: string): void {
    const row = runpodInstanceRows(this.d.db).find((r) => r.id === id);
    if (row) {
      this.add(row);
      // An edited endpoint (another id, a mistyped one corrected) is asked now, not at the next round.
      const e = this.endpoints.get(id);
      if (e && this.running && asksHealthHere(this.d.db, this.d.leases ?? null)(id)) this.askHealth(e);
    } else if (this.endpoints.get(id)?.running.size === 0) this.endpoints.delete(id);
  }

  private askHealth(e: Endpoint): void {
    if (e.row.admin_state === 'disabled') return;
    const {
      client,
      row: { id },
    } = e;
    // An answer about a client since replaced (the endpoint was edited meanwhile) says nothing of the endpoint now.
    const now = () => {
      const cur = this.endpoints.get(id);
      return cur?.client === client ? cur : null;
    };
    void client.health().then(
      (answer) => {
        const cur = now();
        if (!cur) return;
        cur.lastHealth = healthView(answer);
        this.setHealth(cur, 'idle', null, true);
      },
      (err: unknown) => {
        const cur = now();
        const rejected = err instanceof RunpodHttpError && err.rejectedKey;
        if (cur)
          this.setHealth(
            cur,
            'unhealthy',
            rejected ? this.keyWords(cur) : (err as Error).message,
            !(err instanceof RunpodHttpError && err.status === 0),
          );
      },
    );
  }

  private checkHealth(): void {
    if (!this.running) return;
    // Several engines: the lease holder asks, the others read what it wrote (health-holder.ts).
    this.d.storage.guard('reading the endpoints’ health', () => {
      const asks = asksHealthHere(this.d.db, this.d.leases ?? null);
      const elsewhere: Endpoint[] = [];
      for (const e of this.endpoints.values())
        if (asks(e.row.id)) this.askHealth(e);
        else elsewhere.push(e);
      if (elsewhere.length > 0) this.readHealth(elsewhere);
    });
    this.d.timers.clearTimeout(this.healthTimer);
    this.healthTimer = this.d.timers.setTimeout(
      () => this.checkHealth(),
      Math.max(1_000, this.d.config.probeIntervalMs * 5),
    );
  }

  /** Endpoints another engine holds: their health as that engine last wrote it (RunPod's own counts are the holder's to show). */
  private readHealth(endpoints: readonly Endpoint[]): void {
    const stored = new Map(runpodInstanceRows(this.d.db).map((r) => [r.id, r]));
    for (const e of endpoints) {
      const row = stored.get(e.row.id);
      if (!row) continue;
      const next = withStoredHealth(e.row, row);
      e.row = next.row;
      if (!next.changed && e.lastHealth === null) continue;
      e.lastHealth = null;
      this.d.events.emit('instance.changed', { instance: this.view(e) });
    }
  }

  /** Health answers arrive on their own (a probe, a runner): a storage fault recording one holds the farm, as a LAN probe's does. */
  private setHealth(e: Endpoint, health: 'idle' | 'unhealthy', error: string | null, answered: boolean): void {
    this.d.storage.guard(`recording ${e.row.name}'s health`, () => this.recordHealth(e, health, error, answered));
  }

  private recordHealth(e: Endpoint, health: 'idle' | 'unhealthy', error: string | null, answered: boolean): void {
    if (!this.running) return;
    const was = e.row.health;
    const at = this.d.clock.now();
    setEndpointHealth(this.d.db, e.row.id, health, error, answered, at);
    e.row = {
      ...e.row,
      health,
      last_error: error,
      last_probe_at: at,
      last_answer_at: answered ? at : e.row.last_answer_at,
    };
    if (!answered) e.lastHealth = null;
    if (was !== health && health === 'unhealthy') this.d.log(`${e.row.name} is unhealthy: ${error ?? ''}`);
    // Every answer goes out: the card's last answer and RunPod's counts are live, not as of the last change of health.
    this.d.events.emit('instance.changed', { instance: this.view(e) });
    if (was !== health && isHealthy(health)) this.kick();
  }

  /** What the runners report: the key was rejected (jobs untouched), or the endpoint answered. */
  private keyRejected = (id: string): void => {
    const e = this.endpoints.get(id);
    if (e) this.setHealth(e, 'unhealthy', this.keyWords(e), true);
  };

  /** A 401 of ours when the key is withheld from this base says so; RunPod's own says it refused the key. */
  private keyWords(e: Endpoint): string {
    return keyMayGoTo(e.row) ? 'API key rejected' : KEY_WITHHELD;
  }

  private heard = (id: string): void => {
    const e = this.endpoints.get(id);
    if (e && e.row.health === 'unhealthy' && e.row.last_error !== this.keyWords(e))
      this.setHealth(e, 'idle', null, true);
  };

  spentToday(): number {
    return totalSpendSince(this.d.db, utcDayStart(this.d.clock.now()));
  }

  /**
   * The dispatch hook, after the LAN pass: queued jobs not being claimed go to endpoints with a free
   * slot, tags and VRAM that fit, while the burst policy says yes. The claim is committed before the
   * runner sends /run.
   */
  pass({ claiming, freeBefore, candidates, lanFreeElsewhere }: PoolPass): number {
    if (!this.running) return 0;
    // A rush job goes to the cloud at once only while no LAN slot is free on the whole farm: one of
    // another engine's workstations that can take it now counts too (asked only for rush jobs).
    const lanSlotFree = (job: JobRow): boolean => freeBefore > 0 || (lanFreeElsewhere?.(job) ?? false);
    const open = [...this.endpoints.values()].filter(
      (e) =>
        e.row.admin_state === 'active' &&
        e.row.health !== 'unhealthy' &&
        e.running.size + e.held.size < e.row.max_concurrency &&
        this.leaseOf(e.row.id) !== undefined,
    );
    if (open.length === 0) return 0;
    const { config, clock } = this.d;
    const now = clock.now();
    const spent = this.spentToday();
    const since = this.d.dispatchingSince();
    let wait: string | null = null;
    let askAt: number | null = null;
    for (const job of candidates(8)) {
      if (open.length === 0) break;
      if (claiming.has(job.id)) continue;
      const rush = job.priority >= PRIORITY_VALUE.rush;
      const decision = burstDecision({
        waitedS: dispatchableWaitS(this.jobSince(job), since, now),
        rush,
        lanSlotFree: rush && lanSlotFree(job),
        burstAfterS: config.burstAfterS,
        spentTodayUsd: spent,
        budgetUsdPerDay: config.burstBudgetUsdPerDay,
      });
      if (!decision.take) {
        wait ??= decision.reason;
        if (decision.askAgainInS !== null) askAt = Math.min(askAt ?? Infinity, now + decision.askAgainInS * 1000 + 5);
        if (decision.askAgainInS === null) break; // the budget: no later job changes that
        continue;
      }
      const at = open.findIndex((e) => endpointFits(e.row, job));
      if (at < 0) continue;
      const e = open[at] as Endpoint;
      claiming.add(job.id);
      this.claimAndRun(e, job, claiming);
      // An attempt's cost is known only at its end: the budget is checked again at every pass.
      if (e.running.size + e.held.size >= e.row.max_concurrency) open.splice(at, 1);
    }
    this.burstWait = wait;
    if (askAt !== null) this.armBurstTimer(askAt);
    return open.reduce((n, e) => n + e.row.max_concurrency - e.running.size - e.held.size, 0);
  }

  /** When a job last became dispatchable: the start of its burst wait (with the farm's). */
  private jobSince = (job: BurstJob): number | null => jobDispatchableSince(this.d.db, job);

  /** A job crosses burst_after_s with nothing else changing: decide again then. */
  private armBurstTimer(at: number): void {
    if (this.burstTimerAt !== null && this.burstTimerAt <= at) return;
    this.d.timers.clearTimeout(this.burstTimer);
    this.burstTimerAt = at;
    this.burstTimer = this.d.timers.setTimeout(
      () => {
        this.burstTimerAt = null;
        this.kick();
      },
      Math.max(0, at - this.d.clock.now()),
    );
  }

  /** The lease stamp an attempt on this endpoint starts under: null without leases, undefined when not this engine's. */
  private leaseOf(instanceId: string): LeaseStamp | null | undefined {
    const leases = this.d.leases;
    if (!leases) return null;
    const epoch = leases.epochOf(instanceId);
    return epoch === null ? undefined : { instanceId, epoch };
  }

  private claimAndRun(e: Endpoint, job: JobRow, claiming: Set<string>): void {
    const lease = this.leaseOf(e.row.id);
    if (lease === undefined) {
      claiming.delete(job.id); // not this engine's endpoint now: the job stays free for the others
      return;
    }
    // The slot is held at once (a placeholder), so the next pass cannot give it away twice.
    const placeholder = job.id;
    e.held.add(placeholder);
    const settled = () => {
      claiming.delete(job.id);
      e.held.delete(placeholder);
    };
    void claimJob({ ...this.d, batch: fencedBatch(this.d.batch, this.d.leases ?? null, lease) }, job, {
      instanceId: e.row.id,
      instanceName: e.row.name,
      gpuName: e.row.gpu_name,
      vramAtDispatch: null,
    }).then(
      (attemptId) => {
        settled();
        const row = attemptId === null ? undefined : jobRow(this.d.db, job.id);
        if (attemptId === null || !row || !this.running) return this.kick();
        this.d.announce([job.id]);
        this.startRunner(e, row, attemptId, null, lease);
        this.announceCards();
      },
      (err: unknown) => {
        settled();
        // Another engine took the endpoint before the claim committed: nothing was stored or sent.
        if (isLeaseLost(err)) return this.kick();
        // The store itself failing (locked, full): the farm holds and dispatches again after its retry, as for the LAN.
        this.d.storage.failed('dispatching', err);
      },
    );
  }

  /**
   * Recovery (at start, or when this engine takes the endpoint's lease over): an open attempt on an
   * endpoint is reconciled by its RunPod id (or waited out without one) — never sent /run again.
   */
  recover(a: AttemptRow): void {
    const e = a.instance_id ? this.endpoints.get(a.instance_id) : undefined;
    const job = jobRow(this.d.db, a.job_id);
    if (!e || !job) return;
    // Followed here already (a lease lost and taken back before its runner ended), or not this engine's.
    if (e.running.has(a.id)) return;
    const lease = this.leaseOf(e.row.id);
    if (lease === undefined) return;
    this.startRunner(e, job, a.id, a, lease);
  }

  /** Attempts followed on one endpoint now. */
  attemptsOn(instanceId: string): number {
    return this.endpoints.get(instanceId)?.running.size ?? 0;
  }

  /** This engine drives the endpoint now: it asks /health at once — the health it read from the store was another engine's. */
  leaseGained(instanceId: string): void {
    const e = this.endpoints.get(instanceId);
    if (e && this.running) this.askHealth(e);
  }

  /**
   * This engine no longer holds the endpoint's lease (expired, handed over): its runners there stop
   * following at once — no /cancel, no write — and their attempts stay open for the engine that
   * takes it, which follows them by their RunPod ids.
   */
  leaseLost(instanceId: string): void {
    const e = this.endpoints.get(instanceId);
    if (!e || e.running.size === 0) return;
    for (const r of e.running.values()) r.detach();
    this.d.log(
      `${e.row.name}: this engine no longer holds its lease; ${e.running.size} attempt(s) there left to the engine that takes it`,
    );
  }

  private startRunner(
    e: Endpoint,
    job: JobRow,
    attemptId: string,
    resume: AttemptRow | null,
    lease: LeaseStamp | null,
  ): void {
    const runner = new RunpodRunner(
      {
        ...this.d,
        batch: fencedBatch(this.d.batch, this.d.leases ?? null, lease),
        lease,
        keyRejected: this.keyRejected,
        heard: this.heard,
        done: (r) => {
          e.running.delete(r.attemptId);
          // Its cost is in the ledger now: every endpoint's card shows today's spend (farm-wide) and what runs there.
          this.d.storage.guard('showing the endpoints', () => this.announceCards());
          this.d.ended();
        },
      },
      job,
      attemptId,
      e.row,
      e.client,
      this.d.template(job.template_id),
      resume,
    );
    e.running.set(attemptId, runner);
  }

  /** Every endpoint's card goes out (what runs there, today's spend). */
  private announceCards(): void {
    if (!this.running) return;
    for (const e of this.endpoints.values()) this.d.events.emit('instance.changed', { instance: this.view(e) });
  }

  private runners(): RunpodRunner[] {
    return [...this.endpoints.values()].flatMap((e) => [...e.running.values()]);
  }

  cancelled(jobIds: readonly string[]): void {
    for (const r of this.runners()) if (jobIds.includes(r.job.id)) r.cancel();
  }

  follows(jobId: string): boolean {
    return this.runners().some((r) => r.job.id === jobId);
  }

  async stopAll(): Promise<void> {
    const all = this.runners();
    for (const r of all) r.stopFarm();
    await Promise.all(all.map((r) => r.finished));
  }

  async close(): Promise<void> {
    this.running = false;
    this.d.timers.clearTimeout(this.healthTimer);
    this.d.timers.clearTimeout(this.burstTimer);
    const all = this.runners();
    for (const r of all) r.detach();
    await Promise.all(all.map((r) => r.finished));
  }

  private view(e: Endpoint): InstanceView {
    const current = this.runners()
      .filter((r) => r.endpoint.id === e.row.id)
      .map((r) => r.job.id);
    const card = toInstanceView(this.d.db, e.row, current);
    return {
      ...card,
      // An endpoint answering while our jobs run there is rendering, not idle.
      health: current.length > 0 && isHealthy(card.health) ? 'busy' : card.health,
      cloud: {
        kind: 'runpod',
        ...e.row.runpod,
        spentTodayUsd: this.spentToday(),
        budgetUsdPerDay: this.d.config.burstBudgetUsdPerDay,
        burstWait: this.burstWait,
        endpointHealth: e.lastHealth,
      },
    };
  }

  /** Why a queued job is not on an endpoint yet (jobs.why, waitReason): the policy's words, or null. */
  waitOfJobs(): PoolWait {
    const { config, clock } = this.d;
    return burstWaitOf({
      endpoints: [...this.endpoints.values()].map((e) => e.row),
      burstAfterS: config.burstAfterS,
      budgetUsdPerDay: config.burstBudgetUsdPerDay,
      spentTodayUsd: () => this.spentToday(),
      now: clock.now(),
      dispatchingSince: this.d.dispatchingSince(),
      jobSince: this.jobSince,
    });
  }

  views(): InstanceView[] {
    return [...this.endpoints.values()].map((e) => this.view(e));
  }
}
