/**
 * The LAN ComfyUI servers of the farm (kind 'comfyui' workstations), a WorkerPool (../worker-pool.ts):
 * their registry (probes, sockets, slots, quarantine — instance-registry.ts), the contact watch,
 * and the attempts running there (attempt-runner.ts): claimed through the one claim path
 * (../attempt/claim.ts), recovered at start, cancelled, stopped, displaced or detached with the farm.
 * Which queued job goes to which server is the scheduler's policy (candidates, fair share,
 * reservations, prefetch, dispatch choice): it is given here as `plan`, so this pool never imports
 * the scheduler; the pool does what the plan says.
 */
import type { InstanceView } from '../../../../shared/domain.js';
import type { Announce } from '../../announcer.js';
import { NO_ENV, type EngineEnv } from '../../engine-env.js';
import type { AttemptRow } from '../../store/attempt-store.js';
import type { JobRow } from '../../store/job-rows.js';
import { jobRow } from '../../store/job-store.js';
import type { StoredTemplate } from '../../store/template-store.js';
import { S3Uploader } from '../../storage/s3-uploader.js';
import { checkpointOfJob } from '../../templates/checkpoint.js';
import type { InstanceFacts } from '../../views/wait-reasons.js';
import type { ObjectInfo } from '../../comfy/schemas.js';
import { claimJob } from '../attempt/claim.js';
import { fencedBatch, type FarmLeases, type LeaseStamp } from '../attempt/lease-fence.js';
import type { ConcludeDeps } from '../attempt/deps.js';
import type { PoolPass, PoolWait, WorkerPool } from '../worker-pool.js';
import { AttemptRunner } from './attempt-runner.js';
import { AttemptWatch } from './attempt-watch.js';
import { ContactWatch } from './contact-watch.js';
import { InstanceRegistry, type InstanceRuntime } from './instance-registry.js';
import type { InstanceSnapshot } from './instance-snapshot.js';
import { LiveAttempts } from './live-attempts.js';
import { VramSampler } from './vram-sampler.js';
import type { VramKnowledge } from '../../templates/vram-knowledge.js';

/** What the dispatch policy decided for this pool's instances in one pass (the scheduler's dispatch-choice.ts). */
export interface LanPlan {
  assignments: readonly { job: JobRow; instanceId: string; snap: { priority: number } }[];
  /** Prompts waiting on a server, asked to give their place to a higher-priority job. */
  displacements: readonly { instanceId: string; instanceName: string; attemptId: string }[];
  /** LAN slots left free after the assignments. */
  free: number;
}

/** The scheduler's policy and bookkeeping, given to the pool (it never imports the scheduler). */
export interface LanPolicy {
  /** One pass's decisions over the dispatchable instances' snapshots. */
  plan: (snaps: Map<string, InstanceSnapshot>, pass: PoolPass) => LanPlan;
  /** A runner starts on a job (reservations, fair share count it). */
  started: (job: JobRow, attemptId: string) => void;
  /** A runner finished (fair share stops counting it); before `ended`. */
  finished: (attemptId: string) => void;
  /** A claim started its runner (benchmarks time dispatch with it). */
  dispatched: (jobId: string, instanceId: string) => void;
  /** Learned VRAM needs: what admission counts, and where each measured attempt is recorded. */
  vram: VramKnowledge;
}

export interface ComfyLanPoolDeps extends ConcludeDeps, LanPolicy {
  /** The host's environment (the AWS_* variables for S3 uploads); default none. */
  env?: EngineEnv;
  /** A job's template (the farm's cache). */
  template: (id: number) => StoredTemplate;
  /** Announced at once, not merged into the tick (the contact watch's lost-contact marks). */
  announceNow: Announce;
  /** A runner ended: the scheduler re-arms its retry timer and decides again. */
  ended: () => void;
  /** Something changed (an instance healthy again, a slot freed): the scheduler decides again. */
  kick: () => void;
  /**
   * Several engines on one PostgreSQL farm: the workstation leases this engine holds — it dispatches
   * only to those, and every attempt's writes are fenced on its lease (../attempt/lease-fence.ts).
   * Null or absent: no leases (SQLite, one engine): every workstation is this engine's.
   */
  leases?: FarmLeases | null;
}

/** One instance's readiness (ComfyLanPool.readiness). */
export interface Readiness {
  id: string;
  probed: boolean;
  /** When its last probe ended, answered or not (the engine's clock; null: none yet). */
  probedAt: number | null;
  dispatchable: boolean;
  nodeListKnown: boolean;
}

export class ComfyLanPool implements WorkerPool {
  readonly kind = 'comfyui' as const;
  /** Open attempts' phases, merged into the views. */
  readonly live = new LiveAttempts();
  /** Open attempts' node counts and latest previews, for the views and jobs.preview. */
  readonly watch = new AttemptWatch();
  private readonly registry: InstanceRegistry;
  private readonly contact: ContactWatch;
  private readonly runners = new Map<string, AttemptRunner>();
  private readonly vramSampler: VramSampler;
  /** Built from the `s3` setting at start; null when outputs stay local only. */
  private uploader: S3Uploader | null = null;
  private running = false;
  private hurryNow: (() => void) | null = null;

  constructor(private readonly d: ComfyLanPoolDeps) {
    this.vramSampler = new VramSampler({
      ...d,
      record: (s) => d.vram.record(s),
      plan: (t, gpu, pixels) => d.vram.sampleRun(t, gpu, pixels),
    });
    this.contact = new ContactWatch({
      db: d.db,
      clock: d.clock,
      config: d.config,
      batch: d.batch,
      announce: d.announceNow,
      log: d.log,
      listeningSince: d.listeningSince,
      storedLastAnswer: (id) => this.registry.get(id)?.row.last_answer_at ?? null,
    });
    this.registry = new InstanceRegistry(
      d.db,
      d.clock,
      d.timers,
      d.events,
      d.config,
      () => d.kick(),
      this.contact,
      (what, err) => d.storage.failed(what, err),
      d.random,
      d.batch,
    );
  }

  start(): void {
    this.running = true;
    this.uploader = S3Uploader.fromSettings(this.d.db, this.d.env ?? NO_ENV, { log: this.d.log });
    this.registry.start();
  }

  /**
   * App closing: stop following; prompts keep running on the servers. Downloads in flight may
   * finish — for at most stopGraceMs — so their jobs complete now; one cut short after that is not
   * a failure: its attempt stays open and the next start collects the outputs from the server's history.
   */
  async close(): Promise<void> {
    this.running = false;
    const all = [...this.runners.values()];
    for (const r of all) r.detach();
    const finished = Promise.all(all.map((r) => r.finished));
    let bound: unknown = null;
    const overdue = new Promise<'overdue'>((resolve) => {
      bound = this.d.timers.setTimeout(() => resolve('overdue'), this.d.config.stopGraceMs);
      this.hurryNow = () => resolve('overdue');
    });
    if ((await Promise.race([finished, overdue])) === 'overdue') for (const r of all) r.abandon();
    this.d.timers.clearTimeout(bound);
    await finished;
    this.registry.stop();
    this.uploader?.close();
  }

  /** Closing: stop waiting for the downloads in flight (a second Ctrl+C); their attempts stay open for the next start. */
  hurry(): void {
    this.hurryNow?.();
  }

  /** Downloads in flight (a graceful stop waits for them, bounded). */
  collecting(): number {
    return [...this.runners.values()].filter((r) => r.collecting).length;
  }

  async stopAll(): Promise<void> {
    const all = [...this.runners.values()];
    for (const r of all) r.stopFarm();
    await Promise.all(all.map((r) => r.finished));
  }

  cancelled(jobIds: readonly string[]): void {
    for (const r of this.runners.values()) if (jobIds.includes(r.job.id)) r.cancel();
  }

  follows(jobId: string): boolean {
    for (const r of this.runners.values()) if (r.job.id === jobId) return true;
    return false;
  }

  refresh(instanceId: string): void {
    this.registry.refresh(instanceId);
  }

  /** A probe of one of these instances answered elsewhere (Test connection): the registry hears it. */
  heard(instanceId: string, probe: Parameters<InstanceRegistry['heard']>[1]): void {
    this.registry.heard(instanceId, probe);
  }

  owns(instanceId: string | null): boolean {
    return instanceId !== null && this.registry.get(instanceId) !== undefined;
  }

  get size(): number {
    return this.runners.size;
  }

  /**
   * Recovery at start — or, with several engines, when this engine takes a workstation's lease: an
   * attempt left open on one of these servers is followed, collected or requeued by its runner. An
   * attempt whose runner here is still winding down (a lease lost and taken back) is taken up once
   * that runner has finished, so it never has two.
   */
  recover(a: AttemptRow): void {
    const rt = a.instance_id ? this.registry.get(a.instance_id) : undefined;
    const job = jobRow(this.d.db, a.job_id);
    if (!rt || !job) return; // never: owns() found it, and liveAttempts found it through its job
    const old = this.runners.get(a.id);
    if (old) {
      void old.finished.then(() => {
        if (this.running && !this.runners.has(a.id) && this.leaseOf(rt.row.id) !== undefined) this.recover(a);
      });
      return;
    }
    const lease = this.leaseOf(rt.row.id);
    if (lease === undefined) return; // another engine's workstation now
    this.startRunner(job, a.id, rt, a, undefined, job.priority, lease);
  }

  /**
   * This engine no longer holds the workstation's lease (expired, handed over): its runners stop
   * following at once, leaving their attempts open for the engine that takes it; nothing more is sent there.
   */
  leaseLost(instanceId: string): void {
    const there = [...this.runners.values()].filter((r) => r.instance.row.id === instanceId);
    for (const r of there) r.leaseLost();
    if (there.length)
      this.d.log(
        `${there[0]?.name}: this engine no longer holds its lease; ${there.length} attempt(s) there left to the engine that takes it`,
      );
  }

  /** Attempts followed on one instance now. */
  attemptsOn(instanceId: string): number {
    let n = 0;
    for (const r of this.runners.values()) if (r.instance.row.id === instanceId) n++;
    return n;
  }

  /** The lease stamp an attempt on this instance starts under: null without leases, undefined when not this engine's. */
  private leaseOf(instanceId: string): LeaseStamp | null | undefined {
    const leases = this.d.leases;
    if (!leases) return null;
    const epoch = leases.epochOf(instanceId);
    return epoch === null ? undefined : { instanceId, epoch };
  }

  views(): InstanceView[] {
    return this.registry.all().map((rt) => this.registry.view(rt));
  }

  /** The LAN's waits are explained through its instances' facts (facts()), not per pool. */
  waitOfJobs(): PoolWait {
    return () => null;
  }

  /** Per registered instance: has its first probe gone out (and when the last one ended), may it take work now, has it reported its node list (tests, benchmarks). */
  readiness(): Readiness[] {
    return this.registry.all().map((rt) => ({
      id: rt.row.id,
      probed: rt.probeSent,
      probedAt: rt.probedAt,
      dispatchable: this.registry.dispatchable(rt),
      nodeListKnown: rt.objectInfo !== null,
    }));
  }

  /** Node lists read in this run, and of those parsed (the others were the same text as one already read). */
  get nodeListReads(): { readonly read: number; readonly parsed: number } {
    return this.registry.objectInfos.stats;
  }

  /** Each instance's node list as loaded in this run (null: not yet). */
  liveNodeLists(): { id: string; live: ObjectInfo | null }[] {
    return this.registry.all().map((rt) => ({ id: rt.row.id, live: rt.objectInfo }));
  }

  /** What each instance tells the wait explainer, by name. */
  facts(reservedFor: (instanceId: string) => InstanceFacts['reservedFor']): InstanceFacts[] {
    const all = [...this.registry.all()].sort((a, b) => (a.row.name < b.row.name ? -1 : 1));
    return all.map((rt) => this.registry.facts(rt, reservedFor(rt.row.id)));
  }

  /** Every prompt waiting on a server behind the running one leaves it unstarted (its end requeues it). */
  async takeOffWaiting(reason: (instanceName: string) => string): Promise<void> {
    const leaving: Promise<unknown>[] = [];
    for (const rt of this.registry.all()) {
      const w = rt.waiting;
      const runner = w ? this.runners.get(w.attemptId) : undefined;
      if (!runner) continue;
      leaving.push(runner.displace(reason(rt.row.name)).then((left) => (left ? runner.finished : undefined)));
    }
    await Promise.all(leaving);
  }

  /**
   * One pass: the policy decides over the dispatchable instances' snapshots; the slots are taken in
   * the registry at once, so a pass before the claims' commit cannot give them away twice.
   */
  pass(p: PoolPass): number {
    const snaps = new Map<string, InstanceSnapshot>();
    for (const rt of this.registry.all())
      if (this.registry.dispatchable(rt) && this.leaseOf(rt.row.id) !== undefined)
        snaps.set(rt.row.id, this.registry.snapshot(rt));
    const plan = this.d.plan(snaps, p);
    for (const x of plan.displacements)
      this.displace(
        x.instanceId,
        x.attemptId,
        `gave its place on ${x.instanceName} to a higher-priority job; back in the queue`,
      );
    if (plan.assignments.length > 0) this.claimAndStart(plan.assignments, p.claiming);
    return plan.free;
  }

  /**
   * The slots are taken now; the claims go into this tick's commit, and the runners (which send
   * the prompts) start only once it is stored.
   */
  private claimAndStart(assignments: LanPlan['assignments'], claiming: Set<string>): void {
    const chosen = assignments.map((a) => ({
      job: a.job,
      priority: a.snap.priority,
      rt: this.registry.get(a.instanceId) as InstanceRuntime,
      template: this.d.template(a.job.template_id),
      // The claim and every later write of the attempt are fenced on the lease it was decided under.
      lease: this.leaseOf(a.instanceId) ?? null,
    }));
    for (const a of chosen) {
      claiming.add(a.job.id);
      this.reserveSlot(a.job, a.rt, a.template, a.priority, a.job.id);
    }
    // Settled one by one: a claim that committed gets its runner even when another failed (a job
    // claimed with no runner would wait for the next start).
    void Promise.allSettled(chosen.map((a) => this.claim(a.job, a.rt, a.lease))).then((results) => {
      const claimed = chosen.map((a, i) => {
        const r = results[i] as PromiseSettledResult<string | null>;
        return {
          ...a,
          attemptId: r.status === 'fulfilled' ? r.value : null,
          error: r.status === 'rejected' ? (r.reason as unknown) : null,
        };
      });
      for (const c of claimed) {
        claiming.delete(c.job.id);
        this.registry.unreserve(c.rt.row.id, c.job.id);
      }
      const fault = claimed.find((c) => c.error !== null);
      // The store failing (locked, full): the farm holds and dispatches again after its retry.
      if (fault) this.d.storage.failed('dispatching', fault.error);
      const started = claimed.filter((c) => c.attemptId !== null);
      if (started.length === 0) return fault ? undefined : this.d.kick();
      this.d.announce(started.map((c) => c.job.id));
      for (const c of started) {
        // The row as claimed (running, its attempt): the runner reports against it.
        const row = jobRow(this.d.db, c.job.id);
        if (!row || !this.running) continue;
        this.d.dispatched(c.job.id, c.rt.row.id);
        this.startRunner(row, c.attemptId as string, c.rt, null, c.template, c.priority, c.lease);
      }
      if (started.length < claimed.length) this.d.kick();
    });
  }

  /** Holds a slot (or the waiting place) for a claim not yet committed, under a placeholder id (the job id). */
  private reserveSlot(
    job: JobRow,
    rt: InstanceRuntime,
    t: StoredTemplate,
    priority: number,
    placeholder: string,
  ): void {
    this.registry.attemptStarted(
      rt.row.id,
      placeholder,
      job.id,
      this.d.vram.needOn(t, job, this.registry.snapshot(rt)),
      checkpointOfJob(t.workflow, t.parameters, job.params_json),
      { priority, rank: job.rank },
    );
  }

  /** Asks the prompt waiting on an instance to give its place to a higher-priority job. */
  private displace(instanceId: string, attemptId: string, reason: string): void {
    const runner = this.runners.get(attemptId);
    if (!runner) return;
    this.registry.setDisplacing(instanceId, true);
    void runner.displace(reason).then((left) => {
      // Left: its end (requeued) frees the place and kicks. Stayed (it had started): try again later.
      if (!left) {
        this.registry.setDisplacing(instanceId, false);
        // Its server started it before the delete arrived (the prompt before it just ended): it runs.
        this.d.log(
          `attempt ${attemptId} kept its place: it had started before it could give it to a higher-priority job`,
        );
      }
      this.d.kick();
    });
  }

  /** Claims one job for one instance (in this tick's commit batch, through the one claim path); null when it went stale. */
  private claim(job: JobRow, rt: InstanceRuntime, lease: LeaseStamp | null): Promise<string | null> {
    const ok = rt.lastOkProbe;
    return claimJob({ ...this.d, batch: fencedBatch(this.d.batch, this.d.leases ?? null, lease) }, job, {
      instanceId: rt.row.id,
      instanceName: rt.row.name,
      gpuName: ok?.gpuName ?? rt.row.gpu_name,
      vramAtDispatch: ok?.vram ? ok.vram.totalBytes - ok.vram.otherBytes : null,
    });
  }

  private startRunner(
    job: JobRow,
    attemptId: string,
    rt: InstanceRuntime,
    resume: AttemptRow | null,
    template?: StoredTemplate,
    priority = job.priority,
    lease: LeaseStamp | null = null,
  ): void {
    const t = template ?? this.d.template(job.template_id);
    this.d.started(job, attemptId);
    this.registry.attemptStarted(
      rt.row.id,
      attemptId,
      job.id,
      this.d.vram.needOn(t, job, this.registry.snapshot(rt)),
      checkpointOfJob(t.workflow, t.parameters, job.params_json),
      { priority, rank: job.rank },
    );
    const runner = new AttemptRunner(
      {
        ...this.d,
        batch: fencedBatch(this.d.batch, this.d.leases ?? null, lease),
        lease,
        registry: this.registry,
        contact: this.contact,
        live: this.live,
        watch: this.watch,
        uploader: this.uploader,
        vram: this.vramSampler,
        done: (r) => {
          this.runners.delete(r.attemptId);
          this.d.finished(r.attemptId);
          this.d.ended();
        },
      },
      job,
      attemptId,
      rt,
      t,
      resume,
    );
    this.runners.set(attemptId, runner);
  }
}
