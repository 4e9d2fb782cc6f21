/**
 * Lost contact, as the job views show it. Per workstation: when it last answered anything (a
 * probe, an attempt's poll, a WebSocket frame) and whether it is silent now; per attempt followed
 * there: since when. From the first failed request of a workstation with running attempts, each
 * of them is marked — lost since the last answer, requeued at a time unless it answers — in one
 * commit, and their jobs are announced; the first answer after that clears the marks the same way.
 * The runner gives its attempt up at the marked time (contact.ts decides both).
 *
 * An incident costs a write when it starts and one when it ends, each in the tick's commit batch
 * (a farm-wide silence — every probe timing out at once — is one fsync, not one per workstation);
 * the attempts' ends close any stretch still open in their own end commit.
 */
import type { Announce } from '../../announcer.js';
import type { Clock } from '../../clock.js';
import { markContactBack, markContactLost, type ContactMark } from '../../store/attempt-store.js';
import type { CommitBatch } from '../../store/commit-batch.js';
import type { Db } from '../../store/database.js';
import type { SchedulerConfig } from '../../settings/farm-config.js';
import { contactLoss } from './contact.js';
import type { ContactPort } from './instance-registry.js';
import { heardSilentSince } from '../../loop-stall.js';

export interface ContactDeps {
  db: Db;
  clock: Clock;
  config: SchedulerConfig;
  /** The tick's writes, committed together; the marks' jobs are announced once it committed. */
  batch: Pick<CommitBatch, 'add'>;
  announce: Announce;
  /** The workstation's last answer as stored (from an earlier run), before this run heard it. */
  storedLastAnswer: (instanceId: string) => number | null;
  log: (message: string) => void;
  /** The end of the engine's own last stall (loop-stall.ts): no workstation is given up less than a grace time after it. */
  listeningSince: () => number;
}

interface Followed {
  jobId: string;
  instanceId: string;
  since: number;
}

export interface Loss {
  lostAt: number;
  requeueAt: number;
}

/** A mark as held: the requeue time follows the grace time setting, even one changed during the silence. */
interface Mark extends Loss {
  since: number;
}

export class ContactWatch implements ContactPort {
  private readonly lastAnswer = new Map<string, number>();
  private readonly silent = new Set<string>();
  private readonly followed = new Map<string, Followed>();
  private readonly marks = new Map<string, Mark>();
  /** Per attempt, who wants to know when its mark is set or moves (a runner's request in flight). */
  private readonly listeners = new Map<string, (loss: Loss) => void>();

  constructor(private readonly d: ContactDeps) {}

  /**
   * A runner follows this attempt from now. On a workstation already silent it is marked at once.
   * A recovered attempt stored as cut off (`storedLostAt`) stays so — since then, with a fresh grace
   * time from now — until its workstation answers.
   */
  follow(attemptId: string, jobId: string, instanceId: string, storedLostAt: number | null = null): void {
    const since = this.d.clock.now();
    this.followed.set(attemptId, { jobId, instanceId, since });
    if (storedLostAt !== null) {
      const loss = contactLoss(storedLostAt, since, this.d.config.graceMs);
      this.marks.set(attemptId, { ...loss, since });
      this.silent.add(instanceId);
      this.write(() => markContactLost(this.d.db, [{ attemptId, ...loss }]));
    }
    if (this.silent.has(instanceId)) this.mark(instanceId);
  }

  /** The runner is done; its end commit closed any open stretch. */
  unfollow(attemptId: string): void {
    this.followed.delete(attemptId);
    this.marks.delete(attemptId);
    this.listeners.delete(attemptId);
  }

  /** Calls `fn` with the attempt's mark now (if any) and whenever it is set or moves, until the returned stop. */
  watch(attemptId: string, fn: (loss: Loss) => void): () => void {
    this.listeners.set(attemptId, fn);
    const now = this.loss(attemptId);
    if (now) fn(now);
    return () => {
      if (this.listeners.get(attemptId) === fn) this.listeners.delete(attemptId);
    };
  }

  /** The workstation answered something. Cheap when it was not silent: called for every WebSocket frame. */
  heard(instanceId: string): void {
    const now = this.d.clock.now();
    this.lastAnswer.set(instanceId, now);
    if (!this.silent.delete(instanceId)) return;
    const back = this.on(instanceId).filter((id) => this.marks.delete(id));
    if (back.length) this.write(() => markContactBack(this.d.db, back, now));
  }

  /** A request to the workstation failed (a probe, a poll). Marks there follow a changed grace time from here. */
  missed(instanceId: string): void {
    this.silent.add(instanceId);
    this.mark(instanceId);
    for (const id of this.on(instanceId)) this.loss(id);
  }

  /** Its last request went unanswered (and nothing answered since). */
  isSilent(instanceId: string): boolean {
    return this.silent.has(instanceId);
  }

  /** A probe's result (the registry's ContactPort). */
  probed(instanceId: string, answered: boolean): void {
    if (answered) this.heard(instanceId);
    else this.missed(instanceId);
  }

  /**
   * The open mark of an attempt: since when its workstation is silent and when it is given up — by
   * the grace time as set now; a changed setting moves the stored time too (one commit).
   */
  loss(attemptId: string): Loss | null {
    const m = this.marks.get(attemptId);
    if (!m) return null;
    const { requeueAt } = contactLoss(m.lostAt, this.listening(m.since), this.d.config.graceMs);
    if (requeueAt !== m.requeueAt) {
      m.requeueAt = requeueAt;
      this.write(() => markContactLost(this.d.db, [{ attemptId, lostAt: m.lostAt, requeueAt }]));
      this.listeners.get(attemptId)?.({ lostAt: m.lostAt, requeueAt });
    }
    return { lostAt: m.lostAt, requeueAt };
  }

  lastAnswerOf(instanceId: string): number | null {
    return this.lastAnswer.get(instanceId) ?? this.d.storedLastAnswer(instanceId);
  }

  /** Since when this engine has listened to an attempt: from its following, or the end of the engine's own later stall. */
  private listening(since: number): number {
    return heardSilentSince(since, this.d.listeningSince());
  }

  private on(instanceId: string): string[] {
    return [...this.followed].filter(([, f]) => f.instanceId === instanceId).map(([id]) => id);
  }

  private mark(instanceId: string): void {
    const fresh = this.on(instanceId).filter((id) => !this.marks.has(id));
    if (fresh.length === 0) return;
    const last = this.lastAnswerOf(instanceId);
    const rows: ContactMark[] = fresh.map((attemptId) => {
      const { since } = this.followed.get(attemptId) as Followed;
      const loss = contactLoss(last, this.listening(since), this.d.config.graceMs);
      this.marks.set(attemptId, { ...loss, since });
      return { attemptId, ...loss };
    });
    this.write(() => markContactLost(this.d.db, rows));
    for (const r of rows) this.listeners.get(r.attemptId)?.(r);
  }

  private write(commit: () => string[]): void {
    this.d.batch.add(commit).then(
      (jobs) => {
        if (jobs.length) this.d.announce(jobs);
      },
      // The marks are what views show; the runner decides from memory either way.
      (err: unknown) => this.d.log(`recording lost contact failed: ${(err as Error).message}`),
    );
  }
}
