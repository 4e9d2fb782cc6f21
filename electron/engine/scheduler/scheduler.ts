/**
 * The dispatcher (SPEC §3): event-driven, no sleep loop. A decision pass runs when something
 * changes — a job queued, bumped or released, an attempt ending, an instance becoming healthy, a
 * retry's backoff ending — and assigns queued jobs, in priority / rank / enqueue order, to the
 * instances that can take them now. A job that fits nowhere now does not block the ones behind it;
 * one too large for every slot that frees gets an instance reserved for it (reservations.ts).
 * Beside it: why jobs wait (waitFacts, progress) and the durable blocked mark (blocked-jobs.ts).
 */
import type { FarmState } from '../../../shared/farm-settings.js';
import { randomId } from '../ids.js';
import { readFarmState } from '../settings/farm-state.js';
import { claimAttempt, endAttempt, liveAttempts, orphanAttempts, previousAttempt, type AttemptRow } from '../store/attempt-store.js';
import { inTransaction } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { jobRow, nextRetryAt, oldestQueued } from '../store/job-store.js';
import type { StoredTemplate } from '../store/template-store.js';
import { S3Uploader } from '../storage/s3-uploader.js';
import { AttemptRunner, type FarmDeps } from './attempt-runner.js';
import { ContactWatch } from './contact-watch.js';
import { LiveAttempts } from './live-attempts.js';
import { BlockedJobs } from './blocked-jobs.js';
import { CapabilityAnswers, type CapabilityAnswer } from './capability-answers.js';
import { candidates, preferWarm } from './candidates.js';
import { makeFarmFacts, type FarmFacts, type KnownNodeList } from './farm-facts.js';
import { farmProgress, type FarmProgress } from './farm-progress.js';
import { InstanceRegistry, type InstanceRuntime } from './instance-registry.js';
import { FarmNodeLists } from './node-lists.js';
import type { FarmPort } from '../handlers/context.js';
import { promoteDueRetries, requeueJob } from './outcomes.js';
import { checkpointOfJob, fitsNow, rankInstances, type InstanceSnapshot, type JobSnapshot } from './policy.js';
import { Reservations } from './reservations.js';
import { AttemptWatch } from './attempt-watch.js';
import { explainer, TemplateCache } from './wait-explainer.js';
import { FairShareFarm } from './fair-share-farm.js';

export interface SchedulerDeps extends FarmDeps {
  log?: (message: string) => void;
}

export class Scheduler implements FarmPort {
  private readonly registry: InstanceRegistry;
  /** Open attempts' phases, merged into the views (FarmPort). */
  readonly live = new LiveAttempts();
  /** Open attempts' node counts and latest previews, for the views and jobs.preview (FarmPort). */
  readonly watch = new AttemptWatch();
  private readonly contact: ContactWatch;
  private readonly runners = new Map<string, AttemptRunner>();
  private readonly templates: TemplateCache;
  private readonly answers = new CapabilityAnswers();
  /** Live node lists, else the stored ones: what is known of an instance until it sends its list in this run. */
  private readonly lists: FarmNodeLists;
  private readonly reservations: Reservations;
  private readonly blocked: BlockedJobs;
  /** GPU time per project and the fair-share order (fair-share-farm.ts). */
  private readonly fair: FairShareFarm;
  private passQueued = false;
  private running = false;
  /** The operator's farm state (durable: read at start, changed through applyFarmState). */
  private state: FarmState = 'running';
  private retryTimer: unknown = null;
  /** Built from the `s3` setting at start; null when outputs stay local only. */
  private uploader: S3Uploader | null = null;
  private retryTimerAt: number | null = null;
  /** For benchmarks: when each dispatch decision found work (ms, performance clock). */
  onDispatch: ((jobId: string, instanceId: string) => void) | null = null;

  constructor(private readonly d: SchedulerDeps) {
    this.contact = new ContactWatch({
      db: d.db, clock: d.clock, config: d.config, announce: d.announce, log: (m) => this.log(m),
      storedLastAnswer: (id) => this.registry.get(id)?.row.last_answer_at ?? null,
    });
    this.registry = new InstanceRegistry(d.db, d.clock, d.timers, d.events, d.config, () => this.kick(), this.contact);
    this.templates = new TemplateCache(d.db);
    this.lists = new FarmNodeLists(d.db);
    this.fair = new FairShareFarm(d);
    this.reservations = new Reservations({
      starvationMs: () => d.config.starvationMs,
      job: (id) => jobRow(d.db, id),
      snapshot: (job) => this.jobSnapshot(job, this.templates.get(job.template_id)),
      capable: (job) => this.capabilityOf(job, this.nodeLists()).capable,
      oldestWaiting: (now) => oldestQueued(d.db, now - d.config.starvationMs),
      log: (m) => this.log(m),
    });
    this.blocked = new BlockedJobs({
      db: d.db, clock: d.clock, timers: d.timers, events: d.events, intervalMs: () => d.config.probeIntervalMs,
      facts: () => this.waitFacts(), templates: this.templates, announce: (ids) => d.announce(ids),
      kick: () => this.kick(),
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
    this.state = readFarmState(this.d.db).state;
    this.uploader = S3Uploader.fromSettings(this.d.db, process.env, { log: (m: string) => this.log(m) });
    this.lists.refresh();
    this.fair.seed();
    this.registry.start();
    this.recover();
    if (this.state === 'stopped') void this.stopRunners();
    this.armRetryTimer();
    this.blocked.start();
    this.kick();
  }

  /** App closing: stop deciding and following; prompts keep running on the servers. */
  async close(): Promise<void> {
    this.running = false;
    this.blocked.stop();
    this.d.timers.clearTimeout(this.retryTimer);
    for (const r of this.runners.values()) r.detach();
    await Promise.all([...this.runners.values()].map((r) => r.finished));
    this.registry.stop();
    this.uploader?.close();
  }

  /**
   * The operator's farm state (recorded by the caller first). paused: no new dispatch, running
   * prompts finish; stopped: also interrupt and remove running prompts and requeue their jobs;
   * running: dispatch again.
   */
  async applyFarmState(state: FarmState): Promise<void> {
    this.state = state;
    if (state === 'stopped') await this.stopRunners();
    if (state === 'running') this.kick();
  }

  get farmState(): FarmState {
    return this.state;
  }

  private async stopRunners(): Promise<void> {
    const all = [...this.runners.values()];
    for (const r of all) r.stopFarm();
    await Promise.all(all.map((r) => r.finished));
  }

  /** Jobs the operator cancelled while running: interrupt and remove their prompts. */
  cancelled(jobIds: string[]): void {
    for (const r of this.runners.values()) if (jobIds.includes(r.job.id)) r.cancel();
  }

  /**
   * An instance was added, edited, drained, disabled or removed through the API: reload its row.
   * (The engine calls this directly — the registry's own `instance.changed` events must not loop back.)
   */
  instanceChanged(id: string): void {
    this.registry.refresh(id);
    this.lists.refresh();
    this.blocked.soon();
  }

  /** Per registered instance: may it take work now, and has it reported its node list (tests, benchmarks). */
  readiness(): { id: string; dispatchable: boolean; nodeListKnown: boolean }[] {
    return this.registry.all().map((rt) => ({ id: rt.row.id, dispatchable: this.registry.dispatchable(rt), nodeListKnown: rt.objectInfo !== null }));
  }

  private nodeLists(): KnownNodeList[] {
    return this.lists.of(this.registry.all().map((rt) => ({ id: rt.row.id, live: rt.objectInfo })));
  }

  private capabilityOf(job: JobRow, lists: readonly KnownNodeList[]): CapabilityAnswer {
    return this.answers.answer(lists, this.templates.get(job.template_id), job.params_json);
  }

  /** What this farm knows now, to explain waits, find blocked jobs and check an import's nodes. */
  waitFacts(): FarmFacts {
    const all = [...this.registry.all()].sort((a, b) => (a.row.name < b.row.name ? -1 : 1));
    const instances = all.map((rt) => this.registry.facts(rt, this.reservations.on(rt.row.id)));
    return { ...makeFarmFacts('farm', instances, this.nodeLists(), this.answers, this.state), overShare: this.fair.overShare() };
  }

  /** Whether anything can still move without a person acting, and what waits for what. */
  progress(): FarmProgress {
    const explain = explainer(this.waitFacts(), this.templates);
    return farmProgress({ db: this.d.db, explain, activeAttempts: this.runners.size, farmState: this.state });
  }

  activeAttempts(): number {
    return this.runners.size;
  }

  /** Something changed: decide soon, once, however many changes arrive in the same tick. */
  kick(): void {
    if (this.passQueued || !this.running) return;
    this.passQueued = true;
    setImmediate(() => {
      this.passQueued = false;
      try {
        this.dispatchPass();
      } catch (err) {
        this.log(`dispatch pass failed: ${(err as Error).stack ?? String(err)}`);
      }
    });
  }

  private recover(): void {
    const { db, clock } = this.d;
    // Attempts whose job moved on while we were away (cancelled from the CLI…): just close them.
    for (const a of orphanAttempts(db)) endAttempt(db, clock, a.id, { outcome: 'cancelled', reason: 'the job moved on while Shotfarm was closed' });
    for (const a of liveAttempts(db)) {
      const rt = a.instance_id ? this.registry.get(a.instance_id) : undefined;
      const job = jobRow(db, a.job_id);
      if (!job) continue; // never: liveAttempts found it through its job
      if (!rt) {
        requeueJob(db, clock, a.job_id, a.id, 'its workstation was removed while Shotfarm was closed', 'lost');
        this.d.announce([a.job_id]);
        continue;
      }
      this.startRunner(job, a.id, rt, a);
    }
  }

  private armRetryTimer(): void {
    // Runners finishing after close() must not arm a timer on a database about to close.
    if (!this.running) return;
    const at = nextRetryAt(this.d.db);
    if (at === null || (this.retryTimerAt !== null && this.retryTimerAt <= at)) return;
    this.d.timers.clearTimeout(this.retryTimer);
    this.retryTimerAt = at;
    this.retryTimer = this.d.timers.setTimeout(() => {
      this.retryTimerAt = null;
      if (!this.running) return;
      const moved = promoteDueRetries(this.d.db, this.d.clock);
      if (moved.length) this.d.announce(moved);
      this.armRetryTimer();
      this.kick();
    }, Math.max(0, at - this.d.clock.now()));
  }

  private jobSnapshot(job: JobRow, template: StoredTemplate): JobSnapshot {
    const prev = job.attempts > 0 ? previousAttempt(this.d.db, job.id) : undefined;
    return {
      id: job.id, priority: job.priority, stage: job.stage, vramGb: job.vram_gb, tags: JSON.parse(job.tags_json) as string[],
      checkpoint: checkpointOfJob(template.workflow, template.parameters, job.params_json), previousInstanceId: prev?.instance_id ?? null,
      oomOn: prev?.error_class === 'oom' ? prev.instance_id : null,
    };
  }

  private checkpointOf(job: JobRow): string | null {
    const t = this.templates.get(job.template_id);
    return checkpointOfJob(t.workflow, t.parameters, job.params_json);
  }

  /** One decision pass. Synchronous up to the claims; runners then proceed on their own. */
  dispatchPass(): void {
    if (this.state !== 'running' || !this.running) return;
    const { db, clock, config } = this.d;
    const now = clock.now();
    const snaps = new Map<string, InstanceSnapshot>();
    for (const rt of this.registry.all()) if (this.registry.dispatchable(rt)) snaps.set(rt.row.id, this.registry.snapshot(rt));
    const free = () => [...snaps.values()].filter((s) => s.running < s.maxConcurrency);
    const scanStarving = this.reservations.scanDue(now);
    if (free().length === 0 && !scanStarving) return;

    const lists = this.nodeLists();
    this.reservations.prune(snaps);
    if (scanStarving) this.reservations.scan(now, snaps);
    if (free().length === 0) return;
    const warm = new Set(free().map((f) => f.lastCheckpoint).filter((c): c is string => c !== null));
    const queue = preferWarm(this.fair.order(candidates(db, free().length, config.candidateScan), Math.max(16, free().length * 4)), warm, Math.max(16, free().length * 4), (j) => this.checkpointOf(j));
    const assignments: { job: JobRow; rt: InstanceRuntime; template: StoredTemplate }[] = [];

    for (const job of queue) {
      if (free().length === 0) break;
      // Capability: which instances have the nodes and models this workflow names? None: it waits
      // (blocked-jobs.ts says why, durably) and costs this pass nothing more.
      const { capable } = this.capabilityOf(job, lists);
      if (capable.size === 0) continue;
      const template = this.templates.get(job.template_id);
      const snap = this.jobSnapshot(job, template);
      const fitting = free().filter((s) => capable.has(s.id) && fitsNow(snap, s) && this.reservations.allows(s.id, snap));
      if (fitting.length === 0) {
        this.reservations.consider(job, snap, snaps, now);
        continue;
      }
      const chosen = rankInstances(snap, fitting)[0] as InstanceSnapshot;
      const rt = this.registry.get(chosen.id) as InstanceRuntime;
      chosen.running++;
      chosen.runningVramGb += snap.vramGb;
      chosen.largestRunningVramGb = Math.max(chosen.largestRunningVramGb, snap.vramGb);
      chosen.serverQueue++;
      assignments.push({ job, rt, template });
    }

    if (assignments.length === 0) return;
    // Every claim of this pass in one commit (one fsync, not one per job); the runners, which
    // send the prompts, start only after it.
    const claimed = inTransaction(db, () => assignments.map((a) => ({ ...a, attemptId: this.claim(a.job, a.rt) })));
    const started = claimed.filter((c): c is typeof c & { attemptId: string } => c.attemptId !== null);
    if (started.length === 0) return;
    this.d.announce(started.map((c) => c.job.id));
    for (const c of started) {
      // The row as claimed (running, its attempt): the runner reports against it.
      const row = jobRow(db, c.job.id);
      if (!row) continue;
      this.onDispatch?.(c.job.id, c.rt.row.id);
      this.startRunner(row, c.attemptId, c.rt, null, c.template);
    }
  }

  /** Claims one job for one instance (inside the pass's transaction); null when it went stale. */
  private claim(job: JobRow, rt: InstanceRuntime): string | null {
    const { db, clock } = this.d;
    const attemptId = randomId();
    const ok = rt.lastOkProbe;
    try {
      claimAttempt(db, clock, {
        jobId: job.id, attemptId, instanceId: rt.row.id, instanceName: rt.row.name, gpuName: ok?.gpuName ?? rt.row.gpu_name,
        vramAtDispatch: ok?.vram ? ok.vram.totalBytes - ok.vram.otherBytes : null, leaseMs: job.timeout_s * 1000 * 2,
      });
      return attemptId;
    } catch (err) {
      this.log(`claim of ${job.id} failed: ${(err as Error).message}`);
      return null;
    }
  }

  private startRunner(job: JobRow, attemptId: string, rt: InstanceRuntime, resume: AttemptRow | null, template?: StoredTemplate): void {
    const t = template ?? this.templates.get(job.template_id);
    this.reservations.started(job.id);
    this.fair.started(attemptId, job.project);
    this.registry.attemptStarted(rt.row.id, attemptId, job.id, job.vram_gb, checkpointOfJob(t.workflow, t.parameters, job.params_json));
    const runner = new AttemptRunner(
      {
        ...this.d, registry: this.registry, contact: this.contact, live: this.live, watch: this.watch, uploader: this.uploader,
        done: (r) => {
          this.runners.delete(r.attemptId);
          this.fair.ended(r.attemptId);
          this.armRetryTimer();
          this.kick();
        },
        log: (m) => this.log(m),
      },
      job, attemptId, rt, t, resume,
    );
    this.runners.set(attemptId, runner);
  }
}
