/**
 * Following one execution until it ends, times out or is lost (SPEC §4.4). The WebSocket is a
 * hint and /queue + /history decide: events only say when to ask. The end is asked for as the real
 * server orders it (prompt-end.ts): not on `execution_success`, which comes before the history
 * write, but on the frames after it, re-asking within milliseconds while the entry is not there yet.
 * Silence is the contact watch's business: from the first failed request the attempt is marked,
 * and it is given up at the marked time unless the server answers before.
 *
 * The routine poll (every `historyPollMs`) is the safety net for frames the socket missed. While
 * the workstation's socket — the one this prompt was posted with — spoke within the poll interval,
 * the net is not needed: the poll waits, at most BUSY_PROBE_SKIPS rounds in a row (the probes'
 * rule), so a prompt that ended without a frame is still seen within (BUSY_PROBE_SKIPS + 1) polls.
 * A look asked for by an event (an end, a reconnect), after a failed ask, or with a quiet,
 * reconnecting or other socket always goes out.
 */
import { settle } from '../../comfy/observation.js';
import type { FollowEvent } from '../../comfy/ws-events.js';
import { saveProgress } from '../../store/attempt-store.js';
import { isFencedReport } from '../../job-state.js';
import type { AttemptScope, Outcome } from './attempt-scope.js';
import { afterFailedAsk, isSilence } from './contact.js';
import { interruptAndRemove } from './interrupt-prompt.js';
import { endCue, endRecheckDelay } from './prompt-end.js';
import { watchEnd, watchExecution } from './prompt-watch.js';
import { isLeaseLost } from '../attempt/lease-fence.js';
import { heardSilentSince } from '../../loop-stall.js';
import { BUSY_PROBE_SKIPS } from './instance-registry.js';

/** The longest the loop waits without looking at the clock (timeouts are judged between waits). */
const MAX_WAIT_MS = 1_000;

export class AttemptFollow {
  private lastActivity: number;
  /** Timeouts are judged only while the server answers; silence is the grace time's business (lost). */
  private answering = true;
  private runningSince: number | null = null;
  private lastPosition = -2;
  /** This execution's end message (or `executing {node:null}`) was seen: the entry is due. */
  private endSeen = false;
  private rechecks = 0;
  /** The first failed ask since the last answer. */
  private failingSince: number | null = null;
  private nextAsk: number;
  private lastProgressSave = 0;
  /** The next ask is the routine poll (the safety net), not one an event or a failure asked for. */
  private routine: boolean;
  /** Routine polls in a row left out because the socket spoke (at most BUSY_PROBE_SKIPS). */
  private pollsSkipped = 0;

  constructor(
    private readonly a: AttemptScope,
    /** The attempt's socket (a PromptFollower), or null: polling alone. */
    private readonly follower: AsyncIterable<FollowEvent> | null,
  ) {
    this.lastActivity = this.nextAsk = a.deps.clock.now();
    // Just posted and answered: the server has it queued, and its frames reach our socket — the
    // first look waits for them (or the poll). An adopted or recovered prompt is looked at now.
    this.routine = a.postedWith !== null && follower !== null;
    if (this.routine) this.nextAsk += a.deps.config.historyPollMs;
  }

  private get now(): number {
    return this.a.deps.clock.now();
  }

  async run(): Promise<Outcome> {
    const { a } = this;
    const { config } = a.deps;
    const iterator = this.follower ? this.follower[Symbol.asyncIterator]() : null;
    let pending: Promise<IteratorResult<FollowEvent>> | null = iterator ? iterator.next() : null;
    while (!a.stopMode) {
      if (a.displacement) {
        const outcome = await this.givePlace();
        if (outcome) return outcome;
        if (a.stopMode) break;
      }
      if (this.now >= this.nextAsk && this.pollMayWait(pending !== null)) {
        this.pollsSkipped++;
        this.nextAsk = this.now + config.historyPollMs;
      } else if (this.now >= this.nextAsk) {
        const outcome = await this.ask();
        if (outcome) return outcome;
        if (a.stopMode) break;
      }
      const t = this.now;
      if (this.answering && this.runningSince !== null && t - this.runningSince > a.job.timeout_s * 1000)
        return this.timeout('absolute', a.job.timeout_s);
      // Time this engine itself was stalled (../../loop-stall.ts) is no sign of a stuck prompt.
      if (
        this.answering &&
        t - heardSilentSince(this.lastActivity, a.deps.listeningSince()) > config.stallTimeoutS * 1000
      )
        return this.timeout('stall', config.stallTimeoutS);

      const next = await this.nextEvent(pending, Math.max(0, Math.min(this.nextAsk - this.now, MAX_WAIT_MS)));
      if (next === 'timer') continue;
      if (next === null) {
        pending = null; // the follower ended (gave up): polling alone carries on
        continue;
      }
      pending = iterator ? iterator.next() : null;
      this.onEvent(next);
    }
    return { kind: 'detached' };
  }

  /**
   * The routine poll may wait: the socket this prompt was posted with is open and spoke within the
   * poll interval, the workstation is not silent, and fewer than BUSY_PROBE_SKIPS polls in a row
   * waited. `listening`: the attempt still reads the socket's events.
   */
  private pollMayWait(listening: boolean): boolean {
    const { a } = this;
    if (!this.routine || this.endSeen || !listening || this.pollsSkipped >= BUSY_PROBE_SKIPS) return false;
    const socket = a.instance.socket;
    if (!socket || a.postedWith === null || socket.clientId !== a.postedWith) return false;
    if (a.deps.contact.isSilent(a.instance.row.id)) return false;
    const spoke = socket.spokeAt;
    return spoke !== null && this.now - spoke < a.deps.config.historyPollMs;
  }

  /** One look at the server: an outcome when the execution ended or is lost, else when to look next. */
  private async ask(): Promise<Outcome | null> {
    const { a } = this;
    const { config, contact } = a.deps;
    this.pollsSkipped = 0;
    this.routine = false;
    const instanceId = a.instance.row.id;
    const bound = this.boundByRequeue();
    const state = await settle(() => (this.endSeen ? watchEnd : watchExecution)(a.client, a.exec, bound.signal));
    bound.release();
    if (a.stopMode) return null;
    this.answering = state.ok;
    if (!state.ok) {
      if (isSilence(state.failure)) contact.missed(instanceId);
      this.failingSince ??= this.now;
      const next = afterFailedAsk({
        failure: state.failure,
        route: state.route,
        loss: contact.loss(a.attemptId),
        failingSince: this.failingSince,
        now: this.now,
        graceMs: config.graceMs,
        pollMs: config.historyPollMs,
        listeningSince: a.deps.listeningSince(),
      });
      if ('giveUp' in next) return { kind: 'failed', obs: next.giveUp };
      this.nextAsk = this.now + next.askInMs;
      return null;
    }
    this.failingSince = null;
    contact.heard(instanceId);
    const s = state.value;
    if (s.kind === 'finished') return { kind: 'finished', entry: s.entry };
    if (s.kind === 'absent') return { kind: 'failed', obs: { kind: 'vanished' } };
    const position = s.kind === 'running' ? -1 : s.position;
    // Waiting behind our own running prompt (prefetch) is not a stall: that one is watched itself.
    if (position !== this.lastPosition || (s.kind === 'queued' && s.behindOurs)) {
      this.lastActivity = this.now;
      this.lastPosition = position;
    }
    if (s.kind === 'running') this.markRunning();
    // After the end: the entry is being written; ask again in milliseconds, not at the next poll.
    this.routine = !this.endSeen;
    this.nextAsk =
      this.now + (this.endSeen ? endRecheckDelay(this.rechecks++, config.historyPollMs) : config.historyPollMs);
    return null;
  }

  /**
   * A higher-priority job wants this prompt's place in the server's queue (prefetch): delete it
   * there and look. Gone, unstarted: the attempt ends `displaced`. Started (or not known): it keeps
   * its place and is followed as before.
   */
  private async givePlace(): Promise<Outcome | null> {
    const { a } = this;
    const d = a.displacement;
    if (!d) return null;
    a.displacement = null;
    if (this.runningSince === null) {
      await settle(() => a.client.deleteFromQueue([a.job.id], { signal: a.signal }));
      const state = await settle(() => watchExecution(a.client, a.exec, a.signal));
      if (state.ok && state.value.kind === 'absent') {
        d.answer(true);
        return { kind: 'displaced', reason: d.reason };
      }
    }
    d.answer(false);
    this.routine = false;
    this.nextAsk = this.now;
    return null;
  }

  /**
   * The signal of one ask: the attempt's, and — once the workstation is marked silent, even while
   * the request hangs (a partition holds it until its timeout) — aborted at the requeue time, so
   * the attempt is given up when the job said it would be.
   */
  private boundByRequeue(): { signal: AbortSignal; release: () => void } {
    const { a } = this;
    const { timers } = a.deps;
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    if (a.signal.aborted) ctl.abort();
    else a.signal.addEventListener('abort', stop, { once: true });
    let timer: unknown = null;
    const unwatch = a.deps.contact.watch(a.attemptId, (loss) => {
      timers.clearTimeout(timer);
      timer = timers.setTimeout(stop, Math.max(0, loss.requeueAt - this.now));
    });
    return {
      signal: ctl.signal,
      release: () => {
        unwatch();
        timers.clearTimeout(timer);
        a.signal.removeEventListener('abort', stop);
      },
    };
  }

  private onEvent(ev: FollowEvent): void {
    const { a } = this;
    const instanceId = a.instance.row.id;
    if (ev.type === 'disconnected' || ev.type === 'lost') {
      this.routine = false;
      this.nextAsk = this.now; // events from now on may be lost: ask the server
      return;
    }
    // A frame, or a new socket's handshake: the server answered.
    a.deps.contact.heard(instanceId);
    if (ev.type === 'reconnected') {
      this.routine = false;
      this.nextAsk = this.now; // nothing is replayed
      return;
    }
    // A successful run's GPU work is over at its end message — ComfyUI's worker only writes history
    // after it — so the next prompt may be posted now, not a history round-trip later. A failed one
    // keeps its slot until it is recorded: the `/free` after a failure must reach the server first.
    if (ev.type === 'execution_success' && ev.inRun) a.deps.registry.releaseSlot(instanceId, a.attemptId);
    const cue = endCue(ev, { endSeen: this.endSeen, postedWith: a.postedWith });
    if (cue !== null && ev.type !== 'status') this.endSeen = true;
    if (cue !== null) this.routine = false;
    if (cue === 'now') this.nextAsk = this.now;
    else if (cue === 'soon')
      this.nextAsk = Math.min(this.nextAsk, this.now + endRecheckDelay(0, a.deps.config.historyPollMs));
    if (!('inRun' in ev) || !ev.inRun) return;
    // Node k of N and the latest preview image, for the views (nothing the attempt decides on).
    a.deps.watch?.observe(a.job.id, a.attemptId, a.workflow, ev, this.now);
    this.lastActivity = this.now;
    if (ev.type === 'execution_start') this.markRunning();
    else if (ev.type === 'executing' && ev.data.node) this.progress(ev.data.node, 0, 0);
    else if (ev.type === 'progress') this.progress(ev.data.node ?? null, ev.data.value, ev.data.max);
  }

  private markRunning(): void {
    if (this.runningSince !== null) return;
    this.runningSince = this.now;
    this.a.started();
  }

  /** Waits for the next follower event or `ms`, whichever is first; null when the stream ended. */
  private nextEvent(
    pending: Promise<IteratorResult<FollowEvent>> | null,
    ms: number,
  ): Promise<FollowEvent | 'timer' | null> {
    const timer = this.a.sleep(ms).then(() => 'timer' as const);
    if (!pending) return timer;
    return Promise.race([pending.then((r) => (r.done ? null : r.value)), timer]).then((v) => {
      this.a.wake(); // an event won: end the wait's timer
      return v;
    });
  }

  /**
   * Live progress goes out as an event every time; the durable checkpoint (a synchronous commit)
   * at most every `progressSaveMs`, and not in a prompt's first second — short renders then cost
   * no checkpoint at all.
   */
  private progress(node: string | null, value: number, max: number): void {
    const { a } = this;
    const now = this.now;
    const nodeType = node && a.workflow?.[node] ? a.workflow[node].class_type : null;
    const p = { node, nodeType, value, max, at: now, ...a.deps.watch?.nodes(a.attemptId) };
    a.deps.events.emit('job.progress', { jobId: a.job.id, progress: p });
    const every = a.deps.config.progressSaveMs;
    const startedAt = a.facts.startedAt ?? now;
    if (now - this.lastProgressSave >= every && now - startedAt >= every) {
      this.lastProgressSave = now;
      // With the other writes of this tick (one commit); a checkpoint lost to a failed commit costs only itself.
      const { db, batch, log } = a.deps;
      batch
        .add(() => saveProgress(db, a.job.id, a.attemptId, p, a.facts.startedAt ?? null))
        .catch((err: unknown) => {
          if (!isFencedReport(err) && !isLeaseLost(err))
            log(`progress checkpoint of job ${a.job.id}: ${(err as Error).message}`);
        });
    }
  }

  /** SPEC §5 timeouts: interrupt, remove from the server's queue, wait until it has left, then record. */
  private async timeout(which: 'absolute' | 'stall', seconds: number): Promise<Outcome> {
    await interruptAndRemove(this.a);
    return { kind: 'failed', obs: { kind: 'timeout', which, seconds } };
  }
}
