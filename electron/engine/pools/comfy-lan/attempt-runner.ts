/**
 * One attempt of one job on one instance (SPEC §4): catch up, listen, post, follow, collect.
 * The attempt was claimed (row + `running`) before this runs, so nothing here is sent unrecorded.
 * Every write is fenced on the attempt still being the job's current one: a cancel, a stop or a
 * newer attempt turns this runner's later reports into no-ops. Following is attempt-follow.ts,
 * recording the end attempt-end.ts; what the attempt is doing meanwhile is held in memory (live
 * phases, contact marks) and merged into the views.
 *
 * Invariants:
 * - The WebSocket is a hint; /queue and /history decide. WS events only say when to ask.
 * - An execution is identified by prompt id AND attempt id (in extra_data) / number, so an older
 *   run of the same prompt id on the same server never ends or completes this one.
 * - A prompt this job already rendered successfully on this server (an earlier attempt whose
 *   report was lost) is collected, not rendered again.
 * - Fresh and recovered attempts alike subscribe to their workstation's one WebSocket (opened by
 *   the registry when it became healthy) by prompt id: no socket set-up per attempt.
 * - Nothing waits without a bound: every request has its deadline, the socket is waited for at
 *   most `socketWaitMs` (then the prompt is posted anyway and polling carries it), and the steps
 *   before the POST together at most `preparationMs` — past it the attempt fails, logged with the
 *   step it was stuck in.
 */
import type { AttemptPhase } from '../../../../shared/domain.js';
import { ShotfarmError } from '../../../../shared/errors.js';
import { ComfyRequestError, settle } from '../../comfy/observation.js';
import type { HistoryEntry } from '../../comfy/responses.js';
import type { Subscription } from '../../comfy/station-socket.js';
import { triedOnInstanceBefore, type AttemptFacts, type AttemptRow } from '../../store/attempt-store.js';
import type { JobRow } from '../../store/job-rows.js';
import type { StoredTemplate } from '../../store/template-store.js';
import { jobPrompt } from '../../templates/job-prompt.js';
import type { ApiWorkflow } from '../../templates/workflow.js';
import { concludeAttempt } from './attempt-end.js';
import { AttemptFollow } from './attempt-follow.js';
import { stopOutcome, type AttemptScope, type Displacement, type Outcome, type RunnerDeps } from './attempt-scope.js';
import type { StopMode } from '../attempt/verdict.js';
import { afterFailedAsk, isSilence } from './contact.js';
import { foreignPromptId } from './foreign-prompt.js';
import { plannedUploads, uploadInputs } from '../attempt/inputs.js';
import type { InstanceRuntime } from './instance-registry.js';
import { ATTEMPT_KEY, JOB_KEY, successfulRunOfJob, watchExecution, type Execution } from './prompt-watch.js';
import { storageFaultOf } from '../attempt/storage-hold.js';
import { isLeaseLost } from '../attempt/lease-fence.js';
import { checkLeaseAfterPost, latePostGraceMs, withdrawLatePost } from './late-post.js';

export type { RunnerDeps } from './attempt-scope.js';

export class AttemptRunner implements AttemptScope {
  stopMode: StopMode | null = null;
  interruptRequested = false;
  displacement: Displacement | null = null;
  workflow: ApiWorkflow | null = null;
  exec: Execution;
  /** The client id the prompt was posted with (null when adopted or recovered). */
  postedWith: string | null = null;
  readonly finished: Promise<void>;
  private readonly ctl = new AbortController();
  /** Aborted when the steps before the POST overrun `preparationMs` (the attempt's own signal aborts it too). */
  private readonly prep = new AbortController();
  /** What the attempt is doing before its POST, for the log line of a preparation that overran. */
  private step = 'starting';
  private sub: Subscription | null = null;
  private wakeUp: (() => void) | null = null;
  /** When the server started this execution (first seen running); written with a checkpoint or at the end. */
  private startedAt: number | null = null;
  /** Downloading the outputs (a graceful stop lets that finish, bounded). */
  collecting = false;
  /** Recovery found the prompt on no server and requeued it (with leases, a late POST of it is looked for once more). */
  private requeuedAbsent = false;

  constructor(
    readonly deps: RunnerDeps,
    readonly job: JobRow,
    readonly attemptId: string,
    readonly instance: InstanceRuntime,
    readonly template: StoredTemplate,
    private readonly resume: AttemptRow | null,
  ) {
    this.exec = { promptId: job.id, attemptId, number: resume?.prompt_number ?? null };
    deps.live.begin(job.id, attemptId, this.exec.number);
    deps.contact.follow(attemptId, job.id, instance.row.id, resume?.contact_lost_at ?? null);
    this.finished = this.run();
  }

  /** What this attempt learned, written with its end (one commit instead of several). */
  get facts(): AttemptFacts {
    return { startedAt: this.startedAt, promptNumber: this.exec.number, clientId: this.postedWith };
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  get client() {
    return this.instance.client;
  }

  get name(): string {
    return this.instance.row.name;
  }

  /**
   * App closing: stop following, leave the prompt running and the attempt open for recovery. A
   * download in flight goes on (the scheduler bounds the wait, then `abandon`s it): the render is
   * done, and its job completes now rather than at the next start.
   */
  detach(): void {
    if (!this.collecting) return this.stop('detach');
    this.stopMode ??= 'detach';
  }

  /**
   * This engine lost the workstation's lease (it expired, or was handed over): stop following at
   * once and send nothing more; the attempt stays open, and the engine that holds the lease now
   * recovers it from the server (catch-up by prompt id, /history) as a restart would.
   */
  leaseLost(): void {
    this.stop('detach');
  }

  /** The graceful stop's wait is over: cut the download short; the attempt stays open for the next start. */
  abandon(): void {
    this.stopMode ??= 'detach';
    this.ctl.abort();
    this.sub?.close();
    this.wake();
  }

  /** The job was cancelled by an operator (already recorded): interrupt and remove the prompt. */
  cancel(): void {
    this.stop('cancel');
  }

  /** "Stop farm": interrupt and remove the prompt, put the job back in the queue. */
  stopFarm(): void {
    this.stop('stopFarm');
  }

  private stop(mode: StopMode): void {
    if (this.stopMode) return;
    this.stopMode = mode;
    this.ctl.abort();
    this.sub?.close();
    this.displacement?.answer(false);
    this.displacement = null;
    this.wake();
  }

  /**
   * This prompt, waiting on the server behind the running one, is to leave (a higher-priority job
   * wants its place, or the farm was paused; `reason` says so in the job's history). Resolves true
   * once it has left the server's queue unstarted (the attempt then ends `displaced`, its job back
   * in the queue uncounted); false when it had started, or the runner is stopping — it stays.
   */
  displace(reason: string): Promise<boolean> {
    if (this.stopMode || this.displacement) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.displacement = { reason, answer: resolve };
      this.wake();
    });
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = this.deps.timers.setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        this.deps.timers.clearTimeout(t);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }

  started(): void {
    this.startedAt ??= this.deps.clock.now();
    this.deps.registry.promptStarted(this.instance.row.id, this.attemptId);
    this.phase('running');
    this.deps.vram?.started(this);
  }

  phase(p: AttemptPhase): void {
    this.collecting = p === 'collecting';
    if (this.deps.live.advance(this.attemptId, p, this.exec.number, this.startedAt)) this.deps.announce([this.job.id]);
  }

  /** The workflow to post: template + shot parameters + seed + the names uploaded inputs got on the server. */
  private buildPrompt(uploaded: Record<string, string> = {}): ApiWorkflow {
    return jobPrompt(this.job, this.template, uploaded);
  }

  private async run(): Promise<void> {
    try {
      // Again and again only while the store or the output disk fails: each time the farm held,
      // waited for its retry, and this attempt is taken up like a recovered one.
      for (let again = false; (await this.pass(again)) === 'storage'; again = true);
    } finally {
      this.collecting = false;
      this.sub?.close();
      this.deps.live.end(this.attemptId);
      this.deps.vram?.ended(this, null);
      this.deps.watch?.end(this.attemptId);
      this.deps.contact.unfollow(this.attemptId);
      this.deps.done(this);
    }
  }

  /** Follow (or recover) and conclude once; 'storage' when a storage fault cut it and it must be made again. */
  private async pass(again: boolean): Promise<'done' | 'storage'> {
    let outcome: Outcome;
    try {
      outcome = this.resume || again ? await this.recover() : await this.fresh();
    } catch (err) {
      if (isLeaseLost(err)) {
        // Another engine took the workstation: nothing more is sent or recorded here (said once).
        this.deps.log(
          `attempt ${this.attemptId} of job ${this.job.id} on ${this.name}: ${err.message}; left to that engine`,
        );
        this.stopMode ??= 'detach';
        outcome = { kind: 'detached' };
      } else {
        const held = await this.heldForStorage(err);
        if (held === 'again') return 'storage';
        outcome = held === 'stopped' ? { kind: 'detached' } : this.unexpected(err);
      }
    }
    // A stop decides the end whatever the server said meanwhile: its outcome is the stop's.
    if (this.stopMode) outcome = stopOutcome(this.stopMode);
    this.displacement?.answer(false);
    this.deps.vram?.ended(this, outcome);
    try {
      await concludeAttempt(this, outcome);
      // Several engines: once the requeue is committed, a late POST by the engine that lost this
      // workstation, landed since the last look, is taken off (late-post.ts).
      if (this.requeuedAbsent && outcome.kind === 'requeue' && this.deps.lease) await withdrawLatePost(this);
    } catch (err) {
      const held = await this.heldForStorage(err);
      if (held === 'again') return 'storage';
      if (held === 'no')
        this.deps.log(`attempt ${this.attemptId} of job ${this.job.id}: ${(err as Error).stack ?? String(err)}`);
    }
    return 'done';
  }

  /**
   * A storage fault (the database locked or full, the output disk full) is not this attempt's
   * failure: the farm holds, and this attempt — its prompt's result safe on the server — waits for
   * the retry. 'again' when it should be taken up again; 'stopped' when the runner was stopped
   * meanwhile (the attempt stays open for the next start); 'no' for any other error.
   */
  private async heldForStorage(err: unknown): Promise<'again' | 'stopped' | 'no'> {
    const fault = storageFaultOf(err);
    if (!fault) return 'no';
    this.deps.storage.hold(fault, `job ${this.job.shot} ${this.job.stage} on ${this.name}`);
    this.collecting = false;
    if (!this.stopMode) await this.deps.storage.whenRetry(this.signal);
    return this.stopMode === null ? 'again' : 'stopped';
  }

  private unexpected(err: unknown): Outcome {
    if (this.stopMode) return stopOutcome(this.stopMode);
    if (this.prep.signal.aborted) {
      const seconds = Math.round(this.deps.config.preparationMs / 1000);
      this.deps.log(
        `attempt ${this.attemptId} of job ${this.job.id} on ${this.name}: not posted within ${seconds} s, stuck in ${this.step}; given up`,
      );
      return {
        kind: 'failed',
        obs: {
          kind: 'transport',
          route: this.step,
          failure: { kind: 'timeout', afterMs: this.deps.config.preparationMs },
        },
      };
    }
    if (err instanceof ComfyRequestError)
      return { kind: 'failed', obs: { kind: 'transport', route: err.route, failure: err.failure } };
    if (err instanceof ShotfarmError && err.code === 'bad_input')
      return { kind: 'failed', obs: { kind: 'unrunnable', problems: [err.message] } };
    this.deps.log(`attempt ${this.attemptId}: unexpected ${(err as Error).stack ?? String(err)}`);
    return { kind: 'failed', obs: { kind: 'collect_failed', detail: (err as Error).message, diskFull: false } };
  }

  /** This prompt's frames on the workstation's socket, from before the POST on (SPEC §4.3): listening before posting. */
  private listen(): void {
    this.sub = this.deps.registry.socketOf(this.instance).subscribe(this.job.id);
  }

  /** SPEC §4 steps 2–4 for a new attempt; the steps before the POST are bounded together. */
  private async fresh(): Promise<Outcome> {
    const timers = this.deps.timers;
    const deadline = timers.setTimeout(() => this.prep.abort(), this.deps.config.preparationMs);
    this.ctl.signal.addEventListener('abort', () => this.prep.abort(), { once: true });
    let next: Outcome | 'follow';
    try {
      next = await this.prepareAndPost();
    } finally {
      timers.clearTimeout(deadline);
    }
    return next === 'follow' ? this.follow() : next;
  }

  private async prepareAndPost(): Promise<Outcome | 'follow'> {
    this.workflow = this.buildPrompt();
    const signal = this.prep.signal;
    this.listen();
    // Catch up: an earlier attempt of this take may have rendered on this server already, or still
    // be queued there. Only a server an earlier attempt was sent to can hold this prompt id.
    if (this.triedHereBefore()) {
      this.step = 'catch-up GET /history';
      const previous = await this.client.getHistory(this.job.id, { signal });
      if (successfulRunOfJob(previous, this.job.id)) return { kind: 'finished', entry: previous as HistoryEntry };
      this.step = 'catch-up GET /queue';
      const queue = await this.client.getQueue({ signal });
      const live = [...queue.running, ...queue.pending].find(
        (i) => i.promptId === this.job.id && i.extraData[JOB_KEY] === this.job.id,
      );
      if (live) {
        this.exec = {
          promptId: this.job.id,
          attemptId: String(live.extraData[ATTEMPT_KEY] ?? this.attemptId),
          number: live.number,
        };
        this.phase('posted');
        return 'follow';
      }
      // An old failed run of this id would shadow ours in /history until ours ends: clear it first.
      this.step = 'catch-up POST /history {delete}';
      if (previous) await this.client.deleteHistory([this.job.id], { signal });
    }
    // Inputs go to this workstation now; a missing file fails here, before any GPU time.
    this.step = 'uploading inputs';
    const uploads = plannedUploads(this.deps.db, this.job, this.template);
    if (uploads.length) this.workflow = this.buildPrompt(await uploadInputs(this.client, this.job.id, uploads, signal));

    // The workstation's socket is normally open already; if it is not, wait a little, then post
    // without it (its targeted frames are lost then; broadcasts and polling carry the attempt).
    this.step = 'waiting for the workstation socket';
    const clientId = await this.deps.registry.socketOf(this.instance).openClientId(this.deps.config.socketWaitMs);
    if (this.prep.signal.aborted) throw new ComfyRequestError({ kind: 'aborted' }, this.step);
    // Several engines on one farm: the lease must still be this engine's, checked by a fenced write
    // just before the POST (a LeaseLost here sends nothing).
    if (this.deps.lease) {
      this.step = 'checking the workstation lease';
      await this.deps.batch.add(() => undefined);
    }
    let posted;
    this.step = 'POST /prompt';
    try {
      // Not on the preparation signal: a POST cut off after the server queued it would leave an
      // unknown prompt behind. Its own deadline bounds it; the attempt's stop still aborts it.
      posted = await this.client.postPrompt(
        {
          prompt: this.workflow,
          promptId: this.job.id,
          ...(clientId ? { clientId } : {}),
          extraData: { [ATTEMPT_KEY]: this.attemptId, [JOB_KEY]: this.job.id },
        },
        { signal: this.signal },
      );
    } catch (err) {
      if (!(err instanceof ComfyRequestError) || err.failure.kind === 'refused' || err.failure.kind === 'aborted')
        throw err;
      // The POST may have been queued although its answer was lost: ask before deciding.
      const state = await settle(() => watchExecution(this.client, this.exec, this.signal));
      if (!state.ok || state.value.kind === 'absent') throw err;
      this.postedWith = clientId;
      if (state.value.kind !== 'finished') this.exec.number = state.value.item.number;
      await checkLeaseAfterPost(this);
      this.phase('posted');
      return 'follow';
    }
    if (!posted.ok)
      return { kind: 'failed', obs: { kind: 'rejected', error: posted.error, nodeErrors: posted.nodeErrors } };
    if (posted.promptId !== this.job.id) return foreignPromptId(this.client, this.job.id, posted.promptId, signal);
    this.exec.number = posted.number;
    this.postedWith = clientId;
    // Several engines: the lease checked again now the prompt is on the server — a sender frozen
    // between the check above and the POST takes its prompt off if the attempt was given up meanwhile.
    await checkLeaseAfterPost(this);
    this.phase('posted');
    return 'follow';
  }

  /** Was an earlier attempt of this job sent to this instance? (Then its prompt id may be there.) */
  private triedHereBefore(): boolean {
    return triedOnInstanceBefore(this.deps.db, this.job.id, this.instance.row.id, this.attemptId);
  }

  /**
   * Recovery (SPEC §4 "Closing the app or crashing"): follow, collect or requeue an attempt left
   * open. Its socket opens first, like a fresh attempt's, so the end is noticed by events: the
   * prompt was posted under another client id, so only broadcasts reach it — the `status` of the
   * history write among them.
   */
  private async recover(): Promise<Outcome> {
    this.workflow = this.buildPrompt();
    this.sub?.close();
    this.listen();
    const { clock, config, contact } = this.deps;
    /** The first failed ask: a server that only fails (and is never marked silent) is given up a grace time later. */
    let failingSince: number | null = null;
    /** With leases, an absent prompt is looked for once more after latePostGraceMs before it is requeued. */
    let lookedAgain = !this.deps.lease;
    for (;;) {
      const state = await settle(() => watchExecution(this.client, this.exec, this.signal));
      if (this.stopMode) return stopOutcome(this.stopMode);
      if (state.ok) {
        contact.heard(this.instance.row.id);
        const s = state.value;
        if (s.kind === 'finished') return { kind: 'finished', entry: s.entry };
        if (s.kind === 'queued' || s.kind === 'running') {
          this.exec.number = s.item.number;
          this.phase('posted');
          return this.follow();
        }
        // Several engines: the engine that lost this workstation may have its POST still on its way
        // (frozen just before it, or slow): look again after a grace before requeueing (late-post.ts).
        if (!lookedAgain) {
          lookedAgain = true;
          const graceMs = latePostGraceMs(config.leaseMs);
          this.deps.log(
            `attempt ${this.attemptId} of job ${this.job.id} on ${this.name}: its prompt is not on the workstation; looking again in ${graceMs} ms before requeueing`,
          );
          await this.sleep(graceMs);
          continue;
        }
        // Not on the server: never sent (the engine died first) or forgotten by a restarted server.
        // Nothing was rendered for us either way, so it does not count against the job.
        this.requeuedAbsent = true;
        return {
          kind: 'requeue',
          reason: 'recovered: the prompt is not on its workstation (never sent, or the server restarted)',
        };
      }
      if (isSilence(state.failure)) contact.missed(this.instance.row.id);
      failingSince ??= clock.now();
      const next = afterFailedAsk({
        failure: state.failure,
        route: state.route,
        loss: contact.loss(this.attemptId),
        failingSince,
        now: clock.now(),
        graceMs: config.graceMs,
        pollMs: Math.min(config.historyPollMs, 1000),
        listeningSince: this.deps.listeningSince(),
      });
      if ('giveUp' in next) return { kind: 'failed', obs: next.giveUp };
      await this.sleep(next.askInMs);
    }
  }

  /** SPEC §4.4: follow this execution by events and by polling until it ends, times out or is lost. */
  private follow(): Promise<Outcome> {
    return new AttemptFollow(this, this.sub).run();
  }
}
