/**
 * The dispatcher (SPEC §3): event-driven, no sleep loop. A decision pass runs when something
 * changes — a job queued, bumped or released, an attempt ending, an instance becoming healthy, a
 * retry's backoff ending — and assigns queued jobs, in priority / rank / enqueue order, to the
 * instances that can take them now. A job that fits nowhere now does not block the ones behind it;
 * one that has waited too long gets an instance reserved for it.
 */
import type { FarmState } from '../../../shared/farm-settings.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import type { ObjectInfo } from '../comfy/schemas.js';
import { randomId } from '../ids.js';
import { readFarmState } from '../settings/farm-state.js';
import { claimAttempt, endAttempt, liveAttempts, orphanAttempts, previousAttempt, type AttemptRow } from '../store/attempt-store.js';
import { inTransaction } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { jobRow, jobState, nextRetryAt, oldestQueued, queuedPage } from '../store/job-store.js';
import { templateById, type StoredTemplate } from '../store/template-store.js';
import { S3Uploader } from '../storage/s3-uploader.js';
import { AttemptRunner, type FarmDeps } from './attempt-runner.js';
import { CapabilityCache, ComboKeys, describeProblem, unrunnableReason } from './capability-check.js';
import { ContactWatch } from './contact-watch.js';
import { LiveAttempts } from './live-attempts.js';
import { InstanceRegistry, type InstanceRuntime } from './instance-registry.js';
import { explainWait, type JobWait } from './wait-reasons.js';
import { farmProgress, type FarmProgress } from './farm-progress.js';
import type { FarmPort } from '../handlers/context.js';
import { failUnrunnable, promoteDueRetries, requeueJob } from './outcomes.js';
import { checkpointOfJob, couldFit, fitsNow, rankInstances, type InstanceSnapshot, type JobSnapshot } from './policy.js';

export interface SchedulerDeps extends FarmDeps {
  log?: (message: string) => void;
}

/** What the capability check found for one combination of template and combo parameters. */
interface CapabilityAnswer {
  /** Enabled instances with a node list. */
  known: number;
  /** Ids of those that can run it. */
  capable: ReadonlySet<string>;
  /** Why none can (empty when some can). */
  reason: string;
  /** Per instance that cannot: what it lacks, in words. */
  problems: ReadonlyMap<string, string[]>;
}

export class Scheduler implements FarmPort {
  private readonly registry: InstanceRegistry;
  /** Open attempts' phases, merged into the views (FarmPort). */
  readonly live = new LiveAttempts();
  private readonly contact: ContactWatch;
  private readonly runners = new Map<string, AttemptRunner>();
  private readonly templates = new Map<number, StoredTemplate>();
  private readonly capabilities = new CapabilityCache();
  /** Capability answers by combo key, for the instances and node lists they were computed on. */
  private capabilityMemo: { keys: ComboKeys; answers: Map<string, CapabilityAnswer> } | null = null;
  private passQueued = false;
  private running = false;
  /** The operator's farm state (durable: read at start, changed through applyFarmState). */
  private state: FarmState = 'running';
  private retryTimer: unknown = null;
  private nextStarvationCheck = 0;
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
    this.registry.start();
    this.recover();
    if (this.state === 'stopped') void this.stopRunners();
    this.armRetryTimer();
    this.kick();
  }

  /** App closing: stop deciding and following; prompts keep running on the servers. */
  async close(): Promise<void> {
    this.running = false;
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
  }

  /** Per registered instance: may it take work now, and has it reported its node list (tests, benchmarks). */
  readiness(): { id: string; dispatchable: boolean; nodeListKnown: boolean }[] {
    return this.registry.all().map((rt) => ({ id: rt.row.id, dispatchable: this.registry.dispatchable(rt), nodeListKnown: rt.objectInfo !== null }));
  }

  /**
   * For the import preview: problems that keep every enabled workstation from running this
   * template with these parameters; [] when one can; null when no node list is known yet.
   */
  capabilityProblems(template: StoredTemplate, params: Record<string, ParamValue>): string[] | null {
    const answer = this.capabilityOf(template, params);
    if (answer.known === 0) return null;
    return answer.capable.size > 0 ? [] : [answer.reason];
  }

  /**
   * Which enabled instances have every node and model this job needs, remembered per combo key
   * (ComboKeys) while the instances' node lists stay the same objects: the queue and an import
   * are mostly jobs that differ only in free text, so one answer serves thousands of them.
   */
  private capabilityOf(template: StoredTemplate, params: Record<string, ParamValue> | string): CapabilityAnswer {
    const known = this.registry.all().filter((rt) => rt.row.admin_state !== 'disabled' && rt.objectInfo !== null);
    const infos = known.map((rt) => rt.objectInfo as ObjectInfo);
    // Each instance holds its own node-list object, so the same objects mean the same instances.
    if (!this.capabilityMemo?.keys.covers(infos)) this.capabilityMemo = { keys: new ComboKeys(infos), answers: new Map() };
    const memo = this.capabilityMemo;
    let parsed: Record<string, ParamValue>;
    try {
      parsed = typeof params === 'string' ? (JSON.parse(params) as Record<string, ParamValue>) : params;
    } catch {
      parsed = {};
    }
    const key = memo.keys.keyOf(template, parsed);
    let answer = memo.answers.get(key);
    if (!answer) {
      const capable = new Set<string>();
      const lists: ReturnType<CapabilityCache['problems']>[] = [];
      const perInstance = new Map<string, string[]>();
      known.forEach((rt, i) => {
        const problems = this.capabilities.problems(infos[i] as ObjectInfo, template, parsed);
        if (problems.length === 0) capable.add(rt.row.id);
        else {
          lists.push(problems);
          perInstance.set(rt.row.id, [...new Set(problems.map(describeProblem))]);
        }
      });
      answer = { known: known.length, capable, reason: lists.length ? unrunnableReason(lists) : '', problems: perInstance };
      if (memo.answers.size >= 10_000) memo.answers.clear();
      memo.answers.set(key, answer);
    }
    return answer;
  }

  /** Why a queued job is not running now, per workstation (see wait-reasons.ts). */
  explainWait(job: JobRow): JobWait {
    const template = this.template(job.template_id);
    const snap = this.jobSnapshot(job, template);
    const answer = this.capabilityOf(template, job.params_json);
    const facts = this.registry.all().map((rt) => this.registry.facts(rt, answer.capable.has(rt.row.id) ? [] : (answer.problems.get(rt.row.id) ?? null)));
    return explainWait(snap, facts);
  }

  /** Whether anything can still move without a person acting, and what waits for what. */
  progress(): FarmProgress {
    return farmProgress({ db: this.d.db, explain: (job) => this.explainWait(job), activeAttempts: this.runners.size, stopped: this.state !== 'running' });
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

  private template(id: number): StoredTemplate {
    let t = this.templates.get(id);
    if (!t) {
      t = templateById(this.d.db, id) as StoredTemplate;
      this.templates.set(id, t);
    }
    return t;
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
      id: job.id, stage: job.stage, vramGb: job.vram_gb, tags: JSON.parse(job.tags_json) as string[],
      checkpoint: checkpointOfJob(template.workflow, template.parameters, job.params_json), previousInstanceId: prev?.instance_id ?? null,
      oomOn: prev?.error_class === 'oom' ? prev.instance_id : null,
    };
  }

  /** One decision pass. Synchronous up to the claims; runners then proceed on their own. */
  dispatchPass(): void {
    if (this.state !== 'running' || !this.running) return;
    const { db, clock } = this.d;
    const now = clock.now();
    const all = this.registry.all();
    const dispatchable = all.filter((rt) => this.registry.dispatchable(rt));
    const snaps = new Map<string, InstanceSnapshot>(dispatchable.map((rt) => [rt.row.id, this.registry.snapshot(rt)]));
    const free = () => [...snaps.values()].filter((s) => s.running < s.maxConcurrency);
    if (free().length === 0 && now < this.nextStarvationCheck) return;
    // Until every enabled instance has told us its nodes, a job unknown to all is not yet failed.
    const enabled = all.filter((rt) => rt.row.admin_state !== 'disabled');
    const allKnown = enabled.length > 0 && enabled.every((rt) => rt.objectInfo !== null);

    this.releaseStaleReservations(all);
    const reservedIds = new Set(all.map((rt) => rt.reservedFor).filter((x): x is string => x !== null));
    if (now >= this.nextStarvationCheck) this.reserveForStarving(now, enabled, snaps, reservedIds);
    if (free().length === 0) return;
    const warm = new Set(free().map((f) => f.lastCheckpoint).filter((c): c is string => c !== null));
    const candidates = this.preferWarm(this.candidates(free().length), warm, Math.max(16, free().length * 4));
    const assignments: { job: JobRow; rt: InstanceRuntime; template: StoredTemplate }[] = [];
    const unrunnable: { job: JobRow; reason: string }[] = [];

    for (const job of candidates) {
      if (free().length === 0) break;
      const template = this.template(job.template_id);
      const snap = this.jobSnapshot(job, template);
      // Capability: which instances have the nodes and models this workflow names?
      const { capable, reason } = this.capabilityOf(template, job.params_json);
      if (capable.size === 0 && allKnown) {
        unrunnable.push({ job, reason });
        continue;
      }
      const fitting = free().filter((s) => capable.has(s.id) && fitsNow(snap, s) && this.reservationAllows(s.id, job.id));
      if (fitting.length === 0) {
        this.maybeReserve(job, snap, capable, snaps, now, reservedIds);
        continue;
      }
      const chosen = rankInstances(snap, fitting)[0] as InstanceSnapshot;
      const rt = this.registry.get(chosen.id) as InstanceRuntime;
      chosen.running++;
      chosen.runningVramGb += snap.vramGb;
      chosen.serverQueue++;
      assignments.push({ job, rt, template });
    }

    for (const { job, reason } of unrunnable) {
      failUnrunnable(db, clock, job.id, reason);
      this.d.announce([job.id]);
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

  /**
   * Candidates in dispatch order: a small first page (a few per free slot) covers the usual case;
   * further pages, up to `candidateScan`, only when the head of the queue fits nowhere.
   */
  private *candidates(freeSlots: number): Generator<JobRow> {
    const page = Math.min(this.d.config.candidateScan, Math.max(16, freeSlots * 4));
    for (let offset = 0; offset < this.d.config.candidateScan; offset += page) {
      const rows = queuedPage(this.d.db, page, offset);
      yield* rows;
      if (rows.length < page) return;
    }
  }

  /**
   * Within a run of jobs that tie on priority, rank and enqueue time — an imported batch — the
   * order among them is free, so jobs whose checkpoint a free GPU already holds go first: the
   * choice rule then sends each to that GPU and no model is reloaded. The order between runs is
   * never changed.
   */
  private *preferWarm(rows: Iterable<JobRow>, warm: Set<string>, lookahead: number): Generator<JobRow> {
    if (warm.size === 0) return yield* rows;
    let group: JobRow[] = [];
    const flush = function* (this: Scheduler): Generator<JobRow> {
      const isWarm = (j: JobRow): boolean => {
        const t = this.template(j.template_id);
        const c = checkpointOfJob(t.workflow, t.parameters, j.params_json);
        return c !== null && warm.has(c);
      };
      yield* group.filter(isWarm);
      yield* group.filter((j) => !isWarm(j));
      group = [];
    }.bind(this);
    for (const row of rows) {
      const head = group[0];
      // A bounded look-ahead: a 100k-job batch is one tie group, and reading it all would cost more than a reload.
      if (head && (group.length >= lookahead || head.priority !== row.priority || head.rank !== row.rank || head.enqueued_at !== row.enqueued_at)) yield* flush();
      group.push(row);
    }
    yield* flush();
  }

  /**
   * Jobs that waited too long are found by age, not by queue order: the queue's head may be taking
   * every free slot, which is exactly how a large job starves. Throttled: it runs at most every
   * quarter of the starvation time (between 0.25 and 5 s).
   */
  private reserveForStarving(now: number, enabled: InstanceRuntime[], snaps: Map<string, InstanceSnapshot>, reservedIds: Set<string>): void {
    const { db, config } = this.d;
    this.nextStarvationCheck = now + Math.max(250, Math.min(5_000, config.starvationMs / 4));
    for (const job of oldestQueued(db, now - config.starvationMs)) {
      const template = this.template(job.template_id);
      const { capable } = this.capabilityOf(template, job.params_json);
      const snap = this.jobSnapshot(job, template);
      if (![...snaps.values()].some((s) => capable.has(s.id) && fitsNow(snap, s))) this.maybeReserve(job, snap, capable, snaps, now, reservedIds);
    }
  }

  /** A reservation ends when its job is no longer waiting (dispatched elsewhere, cancelled, held…). */
  private releaseStaleReservations(all: InstanceRuntime[]): void {
    for (const rt of all) {
      if (!rt.reservedFor) continue;
      if (jobState(this.d.db, rt.reservedFor) !== 'queued') rt.reservedFor = null;
    }
  }

  private reservationAllows(instanceId: string, jobId: string): boolean {
    const rt = this.registry.get(instanceId);
    return !rt?.reservedFor || rt.reservedFor === jobId;
  }

  /**
   * No starvation: a job that has waited longer than `starvationMs` for hardware that exists
   * (an instance it could fit when empty) reserves the best such instance; smaller jobs stop
   * being placed there until the reserved job takes it.
   */
  private maybeReserve(job: JobRow, snap: JobSnapshot, capable: ReadonlySet<string>, snaps: Map<string, InstanceSnapshot>, now: number, reserved: Set<string>): void {
    if (now - job.enqueued_at < this.d.config.starvationMs || reserved.has(job.id)) return;
    const options = [...snaps.values()].filter((s) => capable.has(s.id) && couldFit(snap, s) && !this.registry.get(s.id)?.reservedFor);
    const best = rankInstances(snap, options)[0];
    if (!best) return;
    (this.registry.get(best.id) as InstanceRuntime).reservedFor = job.id;
    reserved.add(job.id);
    this.log(`reserving ${best.name} for job ${job.id} (waiting ${Math.round((now - job.enqueued_at) / 1000)} s)`);
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
    const t = template ?? this.template(job.template_id);
    this.registry.attemptStarted(rt.row.id, attemptId, job.id, job.vram_gb, checkpointOfJob(t.workflow, t.parameters, job.params_json));
    const runner = new AttemptRunner(
      {
        ...this.d, registry: this.registry, contact: this.contact, live: this.live, uploader: this.uploader,
        done: (r) => {
          this.runners.delete(r.attemptId);
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
