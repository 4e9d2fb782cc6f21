/**
 * The dispatcher (SPEC §3): event-driven, no sleep loop. A decision pass runs when something
 * changes — a job queued, bumped or released, an attempt ending, an instance becoming healthy, a
 * retry's backoff ending — and assigns queued jobs, in priority / rank / enqueue order, to the
 * instances that can take them now. A job that fits nowhere now does not block the ones behind it;
 * one too large for every slot that frees gets an instance reserved for it (reservations.ts).
 * Beside it: why jobs wait (waitFacts, progress) and the durable blocked mark (blocked-jobs.ts).
 */
import type { InstanceView, ProbeView } from '../../../shared/domain.js';
import type { FarmState } from '../../../shared/farm-settings.js';
import type { JobState } from '../../../shared/job-states.js';
import { readFarmState } from '../settings/farm-state.js';
import { endAttempt, liveAttempts, orphanAttempts, previousAttempt } from '../store/attempt-store.js';
import { CommitBatch } from '../store/commit-batch.js';
import type { JobRow } from '../store/job-rows.js';
import { jobRow, jobRows, nextRetryAt, oldestQueued } from '../store/job-store.js';
import type { StoredTemplate } from '../store/template-store.js';
import type { FarmDeps } from '../pools/attempt/deps.js';
import { BlockedJobs } from './blocked-jobs.js';
import { CapabilityAnswers, type CapabilityAnswer } from './capability-answers.js';
import { candidates, preferWarm } from './candidates.js';
import { makeFarmFacts, type FarmFacts, type KnownNodeList } from '../views/farm-facts.js';
import { FarmCounters } from './farm-counters.js';
import { farmProgress, type FarmProgress } from './farm-progress.js';
import { FarmNodeLists } from '../pools/comfy-lan/node-lists.js';
import type { FarmPort } from '../handlers/context.js';
import { promoteDueRetries, requeueJob } from '../pools/attempt/outcomes.js';
import type { InstanceSnapshot, JobSnapshot } from './policy.js';
import { checkpointOfJob } from '../templates/checkpoint.js';
import { behindInstances, choose, freeInstances, PLACES_PER_PASS } from './dispatch-choice.js';
import { MergedAnnounce } from './merged-announce.js';
import { Reservations } from './reservations.js';
import type { Reservation } from './policy.js';
import { keepReservation, writeReservation } from '../store/lease-store.js';
import { StorageHold } from '../pools/attempt/storage-hold.js';
import { explainer } from '../views/wait-explainer.js';
import { withOtherEngines } from '../views/other-engines-facts.js';
import { lanFreeElsewhere } from './lan-elsewhere.js';
import type { TemplateCache } from '../templates/template-cache.js';
import { FairShareFarm } from './fair-share-farm.js';
import type { PoolPass, PoolWait, WorkerPool } from '../pools/worker-pool.js';
import type { ComfyLanPool, LanPlan, Readiness } from '../pools/comfy-lan/comfy-lan-pool.js';
import type { LivePhases } from '../pools/comfy-lan/live-attempts.js';
import type { AttemptWatchView } from '../pools/comfy-lan/attempt-watch.js';
import { farmPools } from './farm-pools.js';
import { LoopStall } from '../loop-stall.js';
import type { FarmLeases } from '../pools/attempt/lease-fence.js';
import type { EngineEnv } from '../engine-env.js';
import { VramKnowledge } from '../templates/vram-knowledge.js';

export interface SchedulerDeps extends FarmDeps {
  log?: (message: string) => void;
  /** The RunPod API key for cloud endpoints (null: none configured). */
  runpodKey?: () => string | null;
  /** The host's environment (the AWS_* variables for S3 uploads); default none. */
  env?: EngineEnv;
  /** The engine's one template cache (templates/template-cache.ts). */
  templates: TemplateCache;
  /**
   * Several engines on one PostgreSQL farm: the workstation leases this engine holds
   * (lock/lease-manager.ts). Each pool (LAN, RunPod) dispatches only to those; an attempt left open is
   * recovered when its workstation's lease is taken (leaseGained), not at start. Null or absent: no
   * leases (SQLite): every workstation is this engine's and recovery runs at start.
   */
  leases?: FarmLeases | null;
}

export class Scheduler implements FarmPort {
  /** The LAN ComfyUI servers (pools/comfy-lan), the first of `pools`: what only they tell (node lists, instance facts) is asked of them here. */
  private readonly lan: ComfyLanPool;
  /** Open attempts' phases, merged into the views (FarmPort). */
  readonly live: LivePhases;
  /** Open attempts' node counts and latest previews, for the views and jobs.preview (FarmPort). */
  readonly watch: AttemptWatchView;
  /** The writes of one tick (claims, ends, checkpoints) in one commit. */
  readonly batch: CommitBatch;
  private readonly templates: TemplateCache;
  private readonly answers = new CapabilityAnswers();
  /** Live node lists, else the stored ones: what is known of an instance until it sends its list in this run. */
  private readonly lists: FarmNodeLists;
  private readonly reservations: Reservations;
  private readonly blocked: BlockedJobs;
  /** GPU time per project and the fair-share order (fair-share-farm.ts). */
  private readonly fair: FairShareFarm;
  private passQueued = false;
  /** The runners' and the passes' announcements, merged per tick. */
  private readonly announce: MergedAnnounce;
  private counters: FarmCounters | null = null;
  /** Jobs whose claim waits for the tick's commit: a pass before it must not pick them again. */
  private readonly claiming = new Set<string>();
  private running = false;
  /** The operator's farm state (durable: read at start, changed through applyFarmState). */
  private state: FarmState = 'running';
  /**
   * When the farm last became able to dispatch (this start, a resume, the end of a storage hold);
   * null while paused, stopped or holding on its storage. Burst waits count from it (burst-wait.ts).
   */
  private dispatchingSince: number | null = null;
  private retryTimer: unknown = null;
  private retryTimerAt: number | null = null;
  /** The farm's wait for its storage (a locked or full database, a full output disk): no dispatch while it holds. */
  readonly storage: StorageHold;
  /** Learned VRAM needs (issue 28): read by every decision, written by every measured attempt. */
  readonly vram: VramKnowledge;
  /** Dispatch passes run in this run (tests, benchmarks). */
  passes = 0;
  /** For benchmarks: when each dispatch decision found work (ms, performance clock). */
  onDispatch: ((jobId: string, instanceId: string) => void) | null = null;
  /** The kinds of workstation (LAN ComfyUI, RunPod endpoints), each behind the WorkerPool seam, dispatched in this order. */
  readonly pools: readonly WorkerPool[];
  /** When this engine last came back from a stall of its own: lost contact is judged from there (loop-stall.ts). */
  private readonly stall: LoopStall;

  constructor(private readonly d: SchedulerDeps) {
    this.stall = new LoopStall({ clock: d.clock, log: (m) => this.log(m) });
    this.storage = new StorageHold({
      clock: d.clock,
      timers: d.timers,
      log: (m) => this.log(m),
      retryMs: () => ({ baseMs: d.config.storageRetryMs, capMs: d.config.storageRetryCapMs }),
      changed: (view) => {
        // The farm's state is the same; what it waits for changed: hosts refetch farm.status.
        try {
          d.events.emit('farm.changed', { farm: readFarmState(d.db) });
        } catch (err) {
          this.log(`publishing the storage hold failed: ${(err as Error).message}`); // never a hold of its own: that would loop
        }
        this.dispatchingChanged();
        if (view === null) this.kick();
      },
    });
    // Every stored batch ends a storage fault streak, whichever write it carried.
    this.batch = new CommitBatch(d.db, undefined, () => this.storage.ok());
    this.announce = new MergedAnnounce(d.announce);
    this.templates = d.templates;
    this.vram = new VramKnowledge(
      d.db,
      d.clock,
      () => d.config.vramLearn,
      (fn) => this.batch.add(fn),
    );
    ({ lan: this.lan, all: this.pools } = farmPools({
      ...d,
      batch: this.batch,
      template: (id) => this.templates.get(id),
      runpodKey: d.runpodKey ?? (() => null),
      log: (m) => this.log(m),
      storage: this.storage,
      dispatchingSince: () => this.dispatchingSince,
      listeningSince: () => this.stall.listeningSince(),
      announce: (ids) => this.announce.add(ids),
      announceNow: d.announce,
      ended: () => {
        this.storage.guard('arming the retry timer', () => this.armRetryTimer());
        this.kick();
      },
      kick: () => this.kick(),
      plan: (snaps, pass) => this.lanPlan(snaps, pass),
      vram: this.vram,
      started: (job, attemptId) => {
        this.reservations.started(job.id);
        this.fair.started(attemptId, job.project);
      },
      finished: (attemptId) => this.fair.ended(attemptId),
      dispatched: (jobId, instanceId) => this.onDispatch?.(jobId, instanceId),
    }));
    this.live = this.lan.live;
    this.watch = this.lan.watch;
    this.lists = new FarmNodeLists(d.db);
    this.fair = new FairShareFarm(d);
    this.reservations = new Reservations({
      starvationMs: () => d.config.starvationMs,
      job: (id) => jobRow(d.db, id),
      snapshot: (job) => this.jobSnapshot(job, this.templates.get(job.template_id)),
      capable: (job) => this.capabilityOf(job, this.nodeLists()).capable,
      oldestWaiting: (now) => oldestQueued(d.db, now - d.config.starvationMs),
      log: (m) => this.log(m),
      // Several engines: what this one keeps free is written on the lease row (the others read it), one per job farm-wide.
      ...(d.leases ? { record: (id, r) => this.recordReservation(id, r) } : {}),
    });
    this.blocked = new BlockedJobs({
      db: d.db,
      clock: d.clock,
      timers: d.timers,
      events: d.events,
      intervalMs: () => d.config.probeIntervalMs,
      facts: () => this.waitFacts(),
      templates: this.templates,
      announce: (ids) => d.announce(ids),
      kick: () => this.kick(),
      guard: (what, step) => this.storage.guard(what, step),
    });
  }

  private log(message: string): void {
    this.d.log?.(message);
  }

  /**
   * Starts probing and reconciles attempts left open by the last run (SPEC §4 recovery), then
   * dispatches — unless the farm was left paused or stopped, which a restart does not undo (a stop
   * the last run had no time to finish is finished now).
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stall.start();
    this.state = readFarmState(this.d.db).state;
    this.dispatchingChanged();
    this.lists.refresh();
    this.fair.seed();
    for (const p of this.pools) p.start();
    // With leases every pool's attempts (LAN workstations, RunPod endpoints) are recovered
    // workstation by workstation as their leases are taken; here only those on none.
    this.recover(this.d.leases ? (id) => !this.pools.some((p) => p.owns(id)) : undefined);
    if (this.state === 'stopped') void this.stopRunners();
    this.armRetryTimer();
    this.blocked.start();
    this.kick();
  }

  /**
   * App closing (a graceful stop: Ctrl+C, SIGTERM, quitting the app): stop deciding and following;
   * prompts keep running on the servers (each pool's close: the LAN lets downloads in flight finish,
   * for at most stopGraceMs). Closed one pool after the other, in order.
   */
  async close(): Promise<void> {
    this.running = false;
    this.stall.stop();
    this.batch.flush();
    this.blocked.stop();
    this.d.timers.clearTimeout(this.retryTimer);
    for (const p of this.pools) await p.close();
    // What the runners stored is published before the database closes; nothing after.
    this.announce.close();
    this.storage.close();
  }

  /** Closing: stop waiting for the downloads in flight (a second Ctrl+C); their attempts stay open for the next start. */
  hurry(): void {
    this.lan.hurry();
  }

  /** How long a graceful stop lets downloads in flight finish. */
  get stopGraceMs(): number {
    return this.d.config.stopGraceMs;
  }

  /** Downloads in flight (a graceful stop waits for them, bounded). */
  collecting(): number {
    return this.lan.collecting();
  }

  storageHold() {
    return this.storage.view;
  }

  /**
   * The operator's farm state (recorded by the caller first). paused: no new dispatch, running
   * prompts finish; stopped: also interrupt and remove running prompts and requeue their jobs;
   * running: dispatch again.
   */
  async applyFarmState(state: FarmState): Promise<void> {
    this.state = state;
    this.dispatchingChanged();
    if (state === 'stopped') await this.stopRunners();
    // Paused: running prompts finish, but one waiting behind them (prefetch) was not started — it leaves.
    if (state === 'paused')
      await this.lan.takeOffWaiting(
        (name) => `taken off ${name}'s queue before it started: the farm was paused; back in the queue`,
      );
    if (state === 'running') this.kick();
  }

  /**
   * The farm's dispatching clock, the one rule for every reason it cannot dispatch: running and not
   * holding on its storage starts it (kept while that lasts), anything else clears it.
   */
  private dispatchingChanged(): void {
    if (this.state !== 'running' || this.storage.held) this.dispatchingSince = null;
    else this.dispatchingSince ??= this.d.clock.now();
  }

  get farmState(): FarmState {
    return this.state;
  }

  private async stopRunners(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.stopAll()));
  }

  /** Jobs the operator cancelled while running: interrupt and remove their prompts. */
  cancelled(jobIds: string[]): void {
    for (const p of this.pools) p.cancelled(jobIds);
  }

  /**
   * Jobs another engine on the database changed (its notice named them). A cancel made there finds
   * no runner of its own for a prompt this engine follows: the prompts of those now cancelled are
   * interrupted here, as `cancelled` does for a cancel made through this engine. Only the jobs this
   * engine follows are read back: on a busy farm most named jobs run on another engine's workstations.
   */
  changedElsewhere(jobIds: readonly string[]): void {
    if (!this.running || jobIds.length === 0) return;
    const here = jobIds.filter((id) => this.pools.some((p) => p.follows(id)));
    if (here.length === 0) return;
    const gone = jobRows(this.d.db, here)
      .filter((r) => r.state === 'cancelled')
      .map((r) => r.id);
    if (gone.length) this.cancelled(gone);
  }

  /**
   * An instance was added, edited, drained, disabled or removed through the API: reload its row.
   * (The engine calls this directly — the registry's own `instance.changed` events must not loop back.)
   */
  instanceChanged(id: string): void {
    for (const p of this.pools) p.refresh(id);
    this.lists.refresh();
    this.blocked.soon();
    // An edit may let it take work now (a tag, more jobs at once) with its health unchanged: nothing else would wake the dispatcher.
    this.kick();
  }

  instanceProbed(id: string, probe: ProbeView): void {
    this.lan.heard(id, probe);
  }

  /** Per registered instance: has its first probe gone out, may it take work now, has it reported its node list (tests, benchmarks). */
  readiness(): Readiness[] {
    return this.lan.readiness();
  }

  /** Node lists read in this run and how many of them were parsed (tests, benchmarks). */
  get nodeListReads(): { readonly read: number; readonly parsed: number } {
    return this.lan.nodeListReads;
  }

  /** The blocked-jobs keeper's full passes begun, steps taken and rows looked at in this run (tests, benchmarks). */
  get blockedKeeper(): Readonly<BlockedJobs['stats']> {
    return this.blocked.stats;
  }

  private nodeLists(): KnownNodeList[] {
    return this.lists.of(this.lan.liveNodeLists());
  }

  private capabilityOf(job: JobRow, lists: readonly KnownNodeList[]): CapabilityAnswer {
    return this.answers.answer(lists, this.templates.get(job.template_id), job.params_json);
  }

  /** What this farm knows now, to explain waits, find blocked jobs and check an import's nodes. */
  waitFacts(): FarmFacts {
    const own = this.lan.facts((id) => this.reservations.on(id));
    // Several engines: the workstations another engine drives are known from the store, not from here.
    const instances = this.d.leases ? withOtherEngines(this.d.db, this.d.leases, own) : own;
    return {
      ...makeFarmFacts('farm', instances, this.nodeLists(), this.answers, this.state, this.poolWait()),
      overShare: this.fair.overShare(),
      storageHold: this.storage.view,
      vram: (t, params) => this.vram.jobVram(t, params),
    };
  }

  /** Why a queued job waits for the other pools (their words joined), and whether any of them could take it. */
  private poolWait(): PoolWait {
    const waits = this.pools.map((p) => p.waitOfJobs());
    if (waits.length === 1) return waits[0] as PoolWait;
    type Job = Parameters<PoolWait>[0];
    return Object.assign(
      (job: Job) =>
        waits
          .map((w) => w(job))
          .filter((x) => x !== null)
          .join('; ') || null,
      {
        couldTake: (job: Job) => waits.some((w) => w.couldTake?.(job) ?? false),
      },
    );
  }

  /**
   * Whether anything can still move without a person acting, and what waits for what. Cheap while
   * jobs move (the counters say so); the queue is read, and the waits explained, only when none does.
   */
  progress(): FarmProgress {
    const moving = this.counts().moving() + this.activeAttempts();
    return farmProgress({
      db: this.d.db,
      explain: () => explainer(this.waitFacts(), this.templates),
      moving,
      farmState: this.state,
    });
  }

  /** Jobs by state, kept incrementally (farm-counters.ts). */
  jobsByState(): Record<JobState, number> {
    return this.counts().jobsByState();
  }

  /** The workstations' cards as this farm holds them (what runs there from memory, not a query per card). */
  instanceViews(): InstanceView[] {
    return this.pools.flatMap((p) => p.views()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private counts(): FarmCounters {
    this.counters ??= new FarmCounters(this.d.db);
    return this.counters;
  }

  activeAttempts(): number {
    return this.pools.reduce((n, p) => n + p.size, 0);
  }

  /** Something changed: decide soon, once, however many changes arrive in the same tick. */
  kick(): void {
    if (this.passQueued || !this.running) return;
    this.passQueued = true;
    setImmediate(() => {
      this.passQueued = false;
      this.storage.guard('dispatching', () => this.dispatchPass());
    });
  }

  /**
   * This engine took a workstation's lease (several engines on one PostgreSQL farm): every attempt
   * left open there — by a stopped, killed or frozen engine — is reconciled exactly as a restart
   * does (catch-up by prompt id, /history, collect or requeue: never a second POST).
   */
  leaseGained(instanceId: string): void {
    if (!this.running) return;
    if (!this.pools.some((p) => p.owns(instanceId))) for (const p of this.pools) p.refresh(instanceId);
    for (const p of this.pools) p.leaseGained?.(instanceId);
    this.storage.guard('recovering a workstation taken over', () => this.recover((id) => id === instanceId));
    this.kick();
  }

  /** A reservation made (false: another engine keeps a GPU free for that job already, or not this engine's workstation now) or ended. */
  private recordReservation(instanceId: string, r: Reservation | null): boolean {
    const leases = this.d.leases;
    const epoch = leases?.epochOf(instanceId) ?? null;
    if (!leases || epoch === null) return false;
    let kept = false;
    this.storage.guard('recording a reservation', () => {
      if (r === null) writeReservation(this.d.db, instanceId, epoch, null);
      else kept = keepReservation(this.d.db, { instanceId, epoch, engineId: leases.identity.id }, r);
    });
    return kept;
  }

  /** Attempts this engine follows on a workstation (a lease hand-over takes idle ones first). */
  attemptsOn(instanceId: string): number {
    return this.pools.reduce((n, p) => n + p.attemptsOn(instanceId), 0);
  }

  /** This engine lost a workstation's lease: its attempts there are left open for the engine that took it. */
  leaseLost(instanceId: string): void {
    for (const p of this.pools) p.leaseLost(instanceId);
  }

  /**
   * Reconciles the attempts left open on the workstations `mine` accepts (every one without leases;
   * with leases, at start those no lease covers, and each leased one when it is taken).
   */
  private recover(mine: (instanceId: string | null) => boolean = () => true): void {
    const { db, clock } = this.d;
    // Attempts whose job moved on while we were away (cancelled from the CLI…): just close them.
    for (const a of orphanAttempts(db))
      if (mine(a.instance_id))
        endAttempt(db, clock, a.id, { outcome: 'cancelled', reason: 'the job moved on while Shotfarm was closed' });
    for (const a of liveAttempts(db)) {
      if (!mine(a.instance_id)) continue;
      const pool = this.pools.find((p) => p.owns(a.instance_id));
      if (pool) {
        pool.recover(a);
        continue;
      }
      requeueJob(db, clock, a.job_id, a.id, 'its workstation was removed while Shotfarm was closed', 'lost');
      this.d.announce([a.job_id]);
    }
  }

  private armRetryTimer(): void {
    // Runners finishing after close() must not arm a timer on a database about to close.
    if (!this.running) return;
    const at = nextRetryAt(this.d.db);
    if (at === null || (this.retryTimerAt !== null && this.retryTimerAt <= at)) return;
    this.d.timers.clearTimeout(this.retryTimer);
    this.retryTimerAt = at;
    this.retryTimer = this.d.timers.setTimeout(
      () => {
        this.retryTimerAt = null;
        if (!this.running) return;
        this.storage.guard('promoting retries', () => {
          const moved = promoteDueRetries(this.d.db, this.d.clock);
          if (moved.length) this.d.announce(moved);
        });
        this.storage.guard('arming the retry timer', () => this.armRetryTimer());
        this.kick();
      },
      Math.max(0, at - this.d.clock.now()),
    );
  }

  private jobSnapshot(job: JobRow, template: StoredTemplate): JobSnapshot {
    const prev = job.attempts > 0 ? previousAttempt(this.d.db, job.id) : undefined;
    return {
      id: job.id,
      priority: job.priority,
      rank: job.rank,
      stage: job.stage,
      vramGb: job.vram_gb,
      tags: JSON.parse(job.tags_json) as string[],
      checkpoint: checkpointOfJob(template.workflow, template.parameters, job.params_json),
      previousInstanceId: prev?.instance_id ?? null,
      oomOn: prev?.error_class === 'oom' ? prev.instance_id : null,
      vram: this.vram.jobVram(template, job.params_json),
    };
  }

  private checkpointOf(job: JobRow): string | null {
    const t = this.templates.get(job.template_id);
    return checkpointOfJob(t.workflow, t.parameters, job.params_json);
  }

  /**
   * One decision pass. Synchronous up to the claims, which join the tick's commit batch; the
   * runners start once it is committed (write before you send). The slots are taken in the
   * registry at once, so a pass before that commit cannot give them away twice.
   */
  dispatchPass(): void {
    if (this.state !== 'running' || !this.running || this.storage.held) return;
    this.passes++;
    // Each pool in turn, through the one seam: what the LAN did not take may burst (pools/runpod/burst-policy.ts).
    const { db, config, leases } = this.d;
    // Several engines: another engine's free workstation holds a rush job back from the cloud too (lan-elsewhere.ts).
    const elsewhere = leases
      ? {
          lanFreeElsewhere: lanFreeElsewhere({
            db,
            leases,
            facts: () => this.lan.facts((id) => this.reservations.on(id)),
            capable: (job) => this.capabilityOf(job, this.nodeLists()).capable,
            snapshot: (job) => this.jobSnapshot(job, this.templates.get(job.template_id)),
          }),
        }
      : {};
    let free = 0;
    for (const p of this.pools)
      free += p.pass({
        claiming: this.claiming,
        freeBefore: free,
        candidates: (slots) => candidates(db, slots, config.candidateScan),
        ...elsewhere,
      });
  }

  /** The LAN pass's policy over its dispatchable instances: what to claim where, what to displace, how many slots it leaves free. */
  private lanPlan(snaps: Map<string, InstanceSnapshot>, pass: PoolPass): LanPlan {
    const { clock, config } = this.d;
    const now = clock.now();
    const none = { assignments: [], displacements: [], free: 0 };
    const open = () => [...freeInstances(snaps), ...behindInstances(snaps, config.prefetch)];
    const scanStarving = this.reservations.scanDue(now);
    if (open().length === 0 && !scanStarving) return none;

    const lists = this.nodeLists();
    this.reservations.prune(snaps);
    if (scanStarving) this.reservations.scan(now, snaps);
    if (open().length === 0) return none;
    // Places to fill: free slots and empty waiting places (a displacement needs only the queue's head).
    const places = [...freeInstances(snaps), ...behindInstances(snaps, config.prefetch).filter((s) => !s.waiting)];
    // Bounded per pass (PLACES_PER_PASS): the candidates read are a few per place this pass can fill.
    const slots = Math.max(1, Math.min(places.length, PLACES_PER_PASS));
    // Free slots first: a job matched to its model there starts now; then the waiting places.
    const warm = places.map((f) => f.lastCheckpoint).filter((c): c is string => c !== null);
    const queue = preferWarm(
      this.fair.order(pass.candidates(slots), Math.max(16, slots * 4)),
      warm,
      Math.max(16, slots * 4),
      (j) => this.checkpointOf(j),
    );
    const { assignments, displacements, capped } = choose(snaps, queue, {
      prefetch: config.prefetch,
      now,
      claiming: pass.claiming,
      capable: (job) => this.capabilityOf(job, lists).capable,
      snapshot: (job) => this.jobSnapshot(job, this.templates.get(job.template_id)),
      allows: (id, snap) => this.reservations.allows(id, snap),
      unplaced: (job, snap) => this.reservations.consider(job, snap, snaps, now),
      maxAssignments: PLACES_PER_PASS,
    });
    // More places than one pass fills: the next pass, in the next turn, goes on (other work runs between).
    if (capped) this.kick();
    return { assignments, displacements, free: Math.max(0, freeInstances(snaps).length - assignments.length) };
  }
}
