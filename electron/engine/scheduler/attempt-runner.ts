/**
 * One attempt of one job on one instance (SPEC §4): catch up, listen, post, follow, collect.
 * The attempt was claimed (row + `running`) before this runs, so nothing here is sent unrecorded.
 * Every write is fenced on the attempt still being the job's current one: a cancel, a stop or a
 * newer attempt turns this runner's later reports into no-ops.
 *
 * Invariants:
 * - The WebSocket is a hint; /queue and /history decide. Terminal WS events only trigger a poll.
 * - An execution is identified by prompt id AND attempt id (in extra_data) / number, so an older
 *   run of the same prompt id on the same server never ends or completes this one.
 * - A prompt this job already rendered successfully on this server (an earlier attempt whose
 *   report was lost) is collected, not rendered again.
 */
import type { RandomSource, Timers } from '../clock.js';
import type { Clock } from '../clock.js';
import { ComfyRequestError, settle } from '../comfy/observation.js';
import type { HistoryEntry } from '../comfy/responses.js';
import { PromptFollower } from '../comfy/ws-follower.js';
import type { FollowEvent } from '../comfy/ws-events.js';
import type { Announce } from '../announcer.js';
import type { EventBus } from '../event-bus.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { saveProgress, endAttempt, triedOnInstanceBefore, type AttemptFacts, type AttemptRow } from '../store/attempt-store.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import type { StoredTemplate } from '../store/template-store.js';
import { applyParameters, type ApiWorkflow } from '../templates/workflow.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import { basename } from 'node:path';
import type { S3Uploader } from '../storage/s3-uploader.js';
import { collectOutputs } from './collect.js';
import { plannedUploads, uploadInputs } from './inputs.js';
import type { SchedulerConfig } from './config.js';
import { classify, type AttemptObservation } from './failure.js';
import type { InstanceRegistry, InstanceRuntime } from './instance-registry.js';
import { completeJob, failJob, isStale, requeueJob } from './outcomes.js';
import { checkpointOf } from './policy.js';
import { ATTEMPT_KEY, JOB_KEY, successfulRunOfJob, terminalMessage, watchExecution, type Execution } from './prompt-watch.js';

/** What the scheduler and each of its runners work with: the store, time, events, the farm's config. */
export interface FarmDeps {
  db: Db;
  clock: Clock;
  random: RandomSource;
  timers: Timers;
  events: EventBus;
  config: SchedulerConfig;
  /** Job rows changed: the engine's announcer loads their views, emits events, notifies hooks. */
  announce: Announce;
}

export interface RunnerDeps extends FarmDeps {
  registry: InstanceRegistry;
  /** Optional S3-compatible copy of every output; the job completes only once it is confirmed. */
  uploader: S3Uploader | null;
  /** When the runner is finished (whatever happened). */
  done: (runner: AttemptRunner) => void;
  log: (message: string) => void;
}

type Outcome =
  | { kind: 'finished'; entry: HistoryEntry }
  | { kind: 'failed'; obs: AttemptObservation }
  | { kind: 'requeue'; reason: string }
  | { kind: 'detached' };

/** Why the runner is asked to stop early. */
type StopMode = 'detach' | 'cancel' | 'stopFarm';

export class AttemptRunner {
  private stopMode: StopMode | null = null;
  private readonly ctl = new AbortController();
  private follower: PromptFollower | null = null;
  private interruptRequested = false;
  private wakeUp: (() => void) | null = null;
  private lastProgressSave = 0;
  /** When the server started this execution (first seen running); written with a checkpoint or at the end. */
  private startedAt: number | null = null;
  /** The client id the prompt was posted with (null when adopted or recovered). */
  private postedWith: string | null = null;

  /** What this attempt learned, written with its end (one commit instead of several). */
  private get facts(): AttemptFacts {
    return { startedAt: this.startedAt, promptNumber: this.exec.number, clientId: this.postedWith };
  }
  private workflow: ApiWorkflow | null = null;
  private exec: Execution;
  readonly finished: Promise<void>;

  constructor(
    private readonly deps: RunnerDeps,
    readonly job: JobRow,
    readonly attemptId: string,
    readonly instance: InstanceRuntime,
    private readonly template: StoredTemplate,
    private readonly resume: AttemptRow | null,
  ) {
    this.exec = { promptId: job.id, attemptId, number: resume?.prompt_number ?? null };
    this.finished = this.run();
  }

  /** App closing: stop following, leave the prompt running and the attempt open for recovery. */
  detach(): void {
    this.stop('detach');
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
    this.follower?.close();
    this.wakeUp?.();
  }

  private get client() {
    return this.instance.client;
  }

  private get name(): string {
    return this.instance.row.name;
  }

  /** The workflow to post: template + shot parameters + seed + the names uploaded inputs got on the server. */
  private buildPrompt(uploaded: Record<string, string> = {}): ApiWorkflow {
    const params = JSON.parse(this.job.params_json) as Record<string, ParamValue>;
    if (this.job.seed !== null && 'seed' in this.template.parameters) params.seed = this.job.seed;
    return applyParameters(this.template.workflow, this.template.parameters, { ...params, ...uploaded });
  }

  private async run(): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = this.resume ? await this.recover() : await this.fresh();
    } catch (err) {
      outcome = this.unexpected(err);
    }
    try {
      await this.conclude(outcome);
    } catch (err) {
      if (!isStale(err)) this.deps.log(`attempt ${this.attemptId} of job ${this.job.id}: ${(err as Error).message}`);
    } finally {
      this.follower?.close();
      this.deps.done(this);
    }
  }

  private unexpected(err: unknown): Outcome {
    if (this.stopMode) return { kind: 'detached' };
    if (err instanceof ComfyRequestError) return { kind: 'failed', obs: { kind: 'transport', route: err.route, failure: err.failure } };
    if (err instanceof ShotfarmError && err.code === 'bad_input') return { kind: 'failed', obs: { kind: 'unrunnable', problems: [err.message] } };
    this.deps.log(`attempt ${this.attemptId}: unexpected ${(err as Error).stack ?? String(err)}`);
    return { kind: 'failed', obs: { kind: 'collect_failed', detail: (err as Error).message, diskFull: false } };
  }

  /** SPEC §4 steps 2–4 for a new attempt. */
  private async fresh(): Promise<Outcome> {
    this.workflow = this.buildPrompt();
    const signal = this.ctl.signal;
    // Listening first (SPEC §4.3); the socket opens while we catch up.
    this.follower = new PromptFollower({
      baseUrl: this.instance.row.url, promptId: this.job.id, attemptId: this.attemptId, random: this.deps.random,
      giveUpAfterMs: this.deps.config.wsGiveUpMs,
    });
    // Catch up: an earlier attempt of this take may have rendered on this server already, or still
    // be queued there. Only a server an earlier attempt was sent to can hold this prompt id.
    if (this.triedHereBefore()) {
      const previous = await this.client.getHistory(this.job.id, { signal });
      if (successfulRunOfJob(previous, this.job.id)) return { kind: 'finished', entry: previous as HistoryEntry };
      const queue = await this.client.getQueue({ signal });
      const live = [...queue.running, ...queue.pending].find((i) => i.promptId === this.job.id && i.extraData[JOB_KEY] === this.job.id);
      if (live) {
        this.exec = { promptId: this.job.id, attemptId: String(live.extraData[ATTEMPT_KEY] ?? this.attemptId), number: live.number };
        return this.follow();
      }
      // An old failed run of this id would shadow ours in /history until ours ends: clear it first.
      if (previous) await this.client.deleteHistory([this.job.id], { signal });
    }
    // Inputs go to this workstation now; a missing file fails here, before any GPU time.
    const uploads = plannedUploads(this.deps.db, this.job, this.template);
    if (uploads.length) this.workflow = this.buildPrompt(await uploadInputs(this.client, this.job.id, uploads, signal));

    await this.follower.ready();
    const clientId = this.follower.clientId as string;
    let posted;
    try {
      posted = await this.client.postPrompt(
        { prompt: this.workflow, promptId: this.job.id, clientId, extraData: { [ATTEMPT_KEY]: this.attemptId, [JOB_KEY]: this.job.id } },
        { signal },
      );
    } catch (err) {
      if (!(err instanceof ComfyRequestError) || err.failure.kind === 'refused' || err.failure.kind === 'aborted') throw err;
      // The POST may have been queued although its answer was lost: ask before deciding.
      const state = await settle(() => watchExecution(this.client, this.exec, signal));
      if (state.ok && state.value.kind !== 'absent') return this.follow();
      throw err;
    }
    if (!posted.ok) return { kind: 'failed', obs: { kind: 'rejected', error: posted.error, nodeErrors: posted.nodeErrors } };
    this.exec.number = posted.number;
    this.postedWith = clientId;
    return this.follow();
  }

  /** Was an earlier attempt of this job sent to this instance? (Then its prompt id may be there.) */
  private triedHereBefore(): boolean {
    return triedOnInstanceBefore(this.deps.db, this.job.id, this.instance.row.id, this.attemptId);
  }

  /** Recovery (SPEC §4 "Closing the app or crashing"): follow, collect or requeue an attempt left open. */
  private async recover(): Promise<Outcome> {
    this.workflow = this.buildPrompt();
    const deadline = this.deps.clock.now() + this.deps.config.graceMs;
    for (;;) {
      const state = await settle(() => watchExecution(this.client, this.exec, this.ctl.signal));
      if (this.stopMode) return { kind: 'detached' };
      if (state.ok) {
        const s = state.value;
        if (s.kind === 'finished') return { kind: 'finished', entry: s.entry };
        if (s.kind === 'queued' || s.kind === 'running') {
          this.exec.number = s.item.number;
          return this.follow();
        }
        // Not on the server: never sent (the engine died first) or forgotten by a restarted server.
        // Nothing was rendered for us either way, so it does not count against the job.
        return { kind: 'requeue', reason: 'recovered: the prompt is not on its workstation (never sent, or the server restarted)' };
      }
      if (this.deps.clock.now() >= deadline) return { kind: 'failed', obs: { kind: 'lost', seconds: Math.round(this.deps.config.graceMs / 1000) } };
      await this.sleep(Math.min(this.deps.config.historyPollMs, 1000));
    }
  }

  private sleep(ms: number): Promise<void> {
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

  /** SPEC §4.4: follow this execution by events and by polling until it ends, times out or is lost. */
  private async follow(): Promise<Outcome> {
    const { clock, config } = this.deps;
    const timeoutMs = this.job.timeout_s * 1000;
    let lastActivity = clock.now();
    let lastContact = clock.now();
    // Timeouts are judged only while the server answers; silence is the grace time's business (lost).
    let answering = true;
    let runningSince: number | null = null;
    let lastPosition = -2;
    let pollNow = true;
    let nextPoll = 0;
    const iterator = this.follower ? this.follower[Symbol.asyncIterator]() : null;
    let pending: Promise<IteratorResult<FollowEvent>> | null = iterator ? iterator.next() : null;

    while (!this.stopMode) {
      const now = clock.now();
      if (pollNow || now >= nextPoll) {
        pollNow = false;
        nextPoll = now + config.historyPollMs;
        const state = await settle(() => watchExecution(this.client, this.exec, this.ctl.signal));
        if (this.stopMode) break;
        answering = state.ok;
        if (state.ok) {
          lastContact = clock.now();
          const s = state.value;
          if (s.kind === 'finished') return { kind: 'finished', entry: s.entry };
          if (s.kind === 'absent') return { kind: 'failed', obs: { kind: 'vanished' } };
          const position = s.kind === 'running' ? -1 : s.position;
          if (position !== lastPosition) {
            lastActivity = clock.now();
            lastPosition = position;
          }
          if (s.kind === 'running' && runningSince === null) runningSince = this.startedAt = clock.now();
        } else if (clock.now() - lastContact > config.graceMs) {
          return { kind: 'failed', obs: { kind: 'lost', seconds: Math.round((clock.now() - lastContact) / 1000) } };
        }
      }
      const t = clock.now();
      if (answering && runningSince !== null && t - runningSince > timeoutMs) return this.timeout('absolute', this.job.timeout_s);
      if (answering && t - lastActivity > config.stallTimeoutS * 1000) return this.timeout('stall', config.stallTimeoutS);

      const wait = Math.max(0, Math.min(nextPoll - clock.now(), 1000));
      const next = await this.nextEvent(pending, wait);
      if (next === 'timer') continue;
      if (next === null) {
        pending = null; // the follower ended (gave up): polling alone carries on
        continue;
      }
      pending = iterator ? iterator.next() : null;
      const ev = next;
      if (ev.type === 'disconnected' || ev.type === 'reconnected' || ev.type === 'lost') {
        pollNow = true;
        continue;
      }
      lastContact = clock.now();
      if (!('inRun' in ev) || !ev.inRun) continue;
      lastActivity = clock.now();
      switch (ev.type) {
        case 'execution_start':
          if (runningSince === null) runningSince = this.startedAt = clock.now();
          break;
        case 'executing':
          if (ev.data.node) this.progress(ev.data.node, 0, 0);
          break;
        case 'progress':
          this.progress(ev.data.node ?? null, ev.data.value, ev.data.max);
          break;
        case 'execution_success':
        case 'execution_error':
        case 'execution_interrupted':
          pollNow = true;
          break;
        default:
          break;
      }
    }
    return { kind: 'detached' };
  }

  /** Waits for the next follower event or `ms`, whichever is first; null when the stream ended. */
  private nextEvent(pending: Promise<IteratorResult<FollowEvent>> | null, ms: number): Promise<FollowEvent | 'timer' | null> {
    const timer = this.sleep(ms).then(() => 'timer' as const);
    if (!pending) return timer;
    return Promise.race([pending.then((r) => (r.done ? null : r.value)), timer]).then((v) => {
      this.wakeUp?.();
      return v;
    });
  }

  /**
   * Live progress goes out as an event every time; the durable checkpoint (a synchronous commit)
   * at most every `progressSaveMs`, and not in a prompt's first second — short renders then cost
   * no checkpoint at all.
   */
  private progress(node: string | null, value: number, max: number): void {
    const now = this.deps.clock.now();
    const nodeType = node && this.workflow?.[node] ? this.workflow[node].class_type : null;
    const p = { node, nodeType, value, max, at: now };
    this.deps.events.emit('job.progress', { jobId: this.job.id, progress: p });
    const every = this.deps.config.progressSaveMs;
    if (now - this.lastProgressSave >= every && now - (this.startedAt ?? now) >= every) {
      this.lastProgressSave = now;
      saveProgress(this.deps.db, this.job.id, this.attemptId, p, this.startedAt);
    }
  }

  /** SPEC §5 timeouts: interrupt, remove from the server's queue, wait until it has left, then record. */
  private async timeout(which: 'absolute' | 'stall', seconds: number): Promise<Outcome> {
    await this.interruptAndRemove();
    return { kind: 'failed', obs: { kind: 'timeout', which, seconds } };
  }

  private async interruptAndRemove(): Promise<void> {
    const { clock, config } = this.deps;
    this.interruptRequested = true;
    const until = clock.now() + config.interruptWaitMs;
    let first = true;
    while (clock.now() < until) {
      const state = await settle(() => watchExecution(this.client, this.exec));
      if (!state.ok) {
        if (first) await this.sleep(250);
        first = false;
        continue;
      }
      const s = state.value;
      if (s.kind === 'finished' || s.kind === 'absent') return;
      // Targeted: only our prompt, and only if it is the one running (never a global interrupt).
      if (s.kind === 'running') await settle(() => this.client.interrupt(this.job.id));
      else await settle(() => this.client.deleteFromQueue([this.job.id]));
      first = false;
      await this.sleep(250);
    }
  }

  private async conclude(outcome: Outcome): Promise<void> {
    const { db, clock, random, config, registry } = this.deps;
    const instanceId = this.instance.row.id;
    if (this.stopMode === 'detach') {
      registry.attemptEnded(instanceId, this.attemptId, 'ok', null);
      return;
    }
    if (this.stopMode === 'cancel' || this.stopMode === 'stopFarm') {
      await this.interruptAndRemove();
      if (this.stopMode === 'cancel') endAttempt(db, clock, this.attemptId, { ...this.facts, outcome: 'cancelled', reason: 'cancelled by an operator' });
      else {
        try {
          requeueJob(db, clock, this.job.id, this.attemptId, 'farm stopped; back in the queue', 'requeued', this.facts);
        } catch (err) {
          if (!isStale(err)) throw err;
        }
      }
      registry.attemptEnded(instanceId, this.attemptId, 'job_failure', null);
      void settle(() => this.client.free({ unloadModels: true }));
      this.deps.announce([this.job.id]);
      return;
    }
    if (outcome.kind === 'detached') return;
    if (outcome.kind === 'requeue') {
      requeueJob(db, clock, this.job.id, this.attemptId, outcome.reason, 'requeued', this.facts);
      registry.attemptEnded(instanceId, this.attemptId, 'ok', null);
      this.deps.announce([this.job.id]);
      return;
    }
    let obs: AttemptObservation | null = outcome.kind === 'failed' ? outcome.obs : null;
    if (outcome.kind === 'finished') {
      const terminal = terminalMessage(outcome.entry);
      if (outcome.entry.status?.statusStr === 'success' || (outcome.entry.status === null && terminal === null)) {
        obs = await this.collect(outcome.entry);
        if (obs === null) return;
      } else if (terminal?.type === 'execution_interrupted') {
        const d = terminal.data;
        obs = { kind: 'interrupted', requested: this.interruptRequested, nodeId: str(d.node_id), nodeType: str(d.node_type) };
      } else {
        const d = terminal?.data ?? {};
        obs = {
          kind: 'execution_error', nodeId: str(d.node_id), nodeType: str(d.node_type),
          exceptionType: str(d.exception_type) ?? 'unknown', exceptionMessage: str(d.exception_message) ?? 'no message',
        };
      }
    }
    const c = classify(obs as AttemptObservation, this.name);
    const result = failJob(db, clock, random, this.job.id, this.attemptId, c, config.retry, this.facts);
    registry.attemptEnded(instanceId, this.attemptId, c.instanceLevel ? 'instance_failure' : 'job_failure', null);
    void settle(() => this.client.free({ unloadModels: true }));
    this.deps.announce(result.changed);
  }

  /** Collect, then ledger + completed in one transaction. Returns an observation if it failed. */
  private async collect(entry: HistoryEntry): Promise<AttemptObservation | null> {
    const { db, clock, config, registry } = this.deps;
    // The GPU is done with this prompt: let the next one start while we download.
    registry.releaseSlot(this.instance.row.id, this.attemptId);
    let assets;
    try {
      assets = await collectOutputs(this.client, entry, config.outputRoot, this.job, this.ctl.signal);
    } catch (err) {
      if (err instanceof ShotfarmError) return { kind: 'collect_failed', detail: err.message, diskFull: err.code === 'storage' };
      if (err instanceof ComfyRequestError) return { kind: 'collect_failed', detail: err.message, diskFull: false };
      const code = (err as NodeJS.ErrnoException).code;
      return { kind: 'collect_failed', detail: (err as Error).message, diskFull: code === 'ENOSPC' };
    }
    if (this.deps.uploader) {
      try {
        for (const a of assets) await this.deps.uploader.upload(a.path, this.deps.uploader.keyFor(this.job, basename(a.path)), a.sha256);
      } catch (err) {
        // The files stay on disk; the attempt fails transiently and a retry collects and uploads again.
        const message = err instanceof ShotfarmError ? err.message : (err as Error).message;
        return { kind: 'collect_failed', detail: `the copy to S3 was not confirmed: ${message}`, diskFull: false };
      }
    }
    const result = completeJob(db, clock, this.job.id, this.attemptId, assets, {
      instanceId: this.instance.row.id, instanceName: this.name, templateName: this.template.name, templateHash: this.template.hash,
      paramsJson: this.job.params_json, seed: this.job.seed,
    }, this.facts);
    registry.attemptEnded(this.instance.row.id, this.attemptId, 'ok', this.workflow ? checkpointOf(this.workflow) : null);
    this.deps.announce(result.changed);
    return null;
  }
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : v === null || v === undefined ? null : String(v);
}
