/**
 * Delivers hooks when jobs finish (SPEC §8), and when a forecast group turns late (issue 28). `notify` only records what to deliver and returns:
 * the scheduler calls it on its own path, and a slow webhook or a hung program must never hold
 * up a state change. Deliveries then run in the background, each bounded by its timeout, retried
 * with exponential backoff and full jitter, and every try and the final outcome is written to
 * `hook_deliveries`. Delivery is at least once: a receiver that must not act twice can use the
 * delivery id it is sent.
 */
import type { JobView } from '../../../shared/domain.js';
import type { ForecastGroup } from '../../../shared/forecast.js';
import type { Clock, RandomSource, Timers } from '../clock.js';
import { fullJitterDelay, type BackoffPolicy } from '../comfy/backoff.js';
import type { Db } from '../store/database.js';
import {
  DEFAULT_HOOK_RETRIES,
  DEFAULT_HOOK_TIMEOUT_MS,
  hookEventFor,
  hookTarget,
  type HookConfig,
  type HookEvent,
} from '../../../shared/hooks.js';
import { getHooks } from './hook-settings.js';
import {
  deliveryRow,
  giveUp,
  insertDelivery,
  pendingDeliveries,
  recordTry,
  toDeliveryView,
  type DeliveryRow,
  type HookDeliveryView,
} from '../store/delivery-store.js';
import { sendCommand, type SendContext } from './send-command.js';
import { sendWebhook } from './send-webhook.js';
import { NO_ENV, type EngineEnv } from '../engine-env.js';

export interface HookRunnerDeps {
  db: Db;
  clock: Clock;
  timers: Timers;
  random: RandomSource;
  log: (message: string) => void;
  /** Delay before retry n is uniform in [0, min(cap, base × 2^n)). */
  backoff?: BackoffPolicy;
  /** Told about each delivery once it is delivered or has failed for good (for UI events). */
  onSettled?: (delivery: HookDeliveryView) => void;
  /** Environment for command hooks: the host's (engine-env.ts); default none. */
  env?: EngineEnv;
}

/** From 2 s up to 5 min: long enough for a chat service's rate limit, short enough to be useful. */
export const DEFAULT_HOOK_BACKOFF: BackoffPolicy = { baseMs: 2_000, capMs: 5 * 60_000 };

/** What the hook receives (stdin or POST body): the job for completed / failed, the forecast group for late. */
export type HookPayload = JobHookPayload | LateHookPayload;
export interface JobHookPayload {
  event: 'completed' | 'failed';
  delivery_id: number;
  hook_id: string;
  job: JobView;
}
export interface LateHookPayload {
  event: 'late';
  delivery_id: number;
  hook_id: string;
  /** The group as the forecast.late event carries it: its range, due time and what would make it. */
  group: ForecastGroup;
}

export class HookRunner {
  private readonly scheduled = new Map<number, unknown>();
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly closing = new AbortController();
  private idleWaiters: (() => void)[] = [];
  private readonly backoff: BackoffPolicy;

  constructor(private readonly deps: HookRunnerDeps) {
    this.backoff = deps.backoff ?? DEFAULT_HOOK_BACKOFF;
  }

  /**
   * Queues a delivery to every hook listening for this job's state (completed → `completed`;
   * failed_final or timeout_kill → `failed`) and returns their ids at once. Never throws: a broken
   * hooks setting or a full disk is logged, and the caller's state change stands.
   */
  notify(job: JobView): number[] {
    const event = hookEventFor(job.state);
    if (!event) return [];
    // Names this terminal transition: publishing the same finished job again queues nothing,
    // while a job retried and failed again is a new transition (more attempts, a new finish time).
    const dedupeKey = `${job.attempts}:${job.finishedAt ?? job.updatedAt}`;
    return this.queue(event, job.id, dedupeKey, JSON.stringify(job), `job ${job.id} (${job.shot}/${job.stage})`);
  }

  /**
   * Queues a delivery to every hook listening for `late` when a forecast group turns late: once per
   * group and due time (the delivery's dedupe key), so a group late again for the same due time is
   * not news, while a new due time that it misses too is. Never throws.
   */
  notifyLate(group: ForecastGroup): number[] {
    return this.queue('late', group.key, `due:${group.dueAt ?? '-'}`, JSON.stringify(group), `group ${group.key}`);
  }

  private queue(event: HookEvent, subject: string, dedupeKey: string, payloadJson: string, what: string): number[] {
    if (this.closing.signal.aborted) return [];
    try {
      const hooks = getHooks(this.deps.db).filter((h) => h.on.includes(event));
      if (hooks.length === 0) return [];
      const now = this.deps.clock.now();
      const ids: number[] = [];
      for (const h of hooks) {
        const id = insertDelivery(this.deps.db, { hookId: h.id, jobId: subject, event, dedupeKey, payloadJson, now });
        if (id === null) continue;
        ids.push(id);
        this.schedule(id, 0);
      }
      return ids;
    } catch (err) {
      this.deps.log(`hooks: nothing was sent for ${what}: ${(err as Error).message}`);
      return [];
    }
  }

  /** Picks up deliveries a crash or a close left pending, keeping their backoff. Returns how many. */
  resumePending(): number {
    if (this.closing.signal.aborted) return 0;
    const now = this.deps.clock.now();
    const rows = pendingDeliveries(this.deps.db).filter((r) => !this.scheduled.has(r.id) && !this.inFlight.has(r.id));
    for (const r of rows) this.schedule(r.id, Math.max(0, (r.next_attempt_at ?? now) - now));
    return rows.length;
  }

  /** Resolves once nothing is waiting or running (tests; a clean shutdown). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    // The runner's timers are unref'd (a hook must not keep a CLI alive), so whoever waits here
    // holds the process up until the deliveries are done; otherwise it could end under the wait.
    const hold = setInterval(() => undefined, 60_000);
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve)).finally(() => clearInterval(hold));
  }

  /** Stops retry timers and in-flight tries; unfinished deliveries stay pending for `resumePending`. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const handle of this.scheduled.values()) this.deps.timers.clearTimeout(handle);
    this.scheduled.clear();
    await Promise.allSettled([...this.inFlight.values()]);
    this.wakeIdle();
  }

  private isIdle(): boolean {
    return this.scheduled.size === 0 && this.inFlight.size === 0;
  }

  private wakeIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private schedule(id: number, delayMs: number): void {
    const handle = this.deps.timers.setTimeout(() => {
      this.scheduled.delete(id);
      const run = this.attempt(id)
        .catch((err: unknown) =>
          this.deps.log(`hooks: delivery ${id} went wrong: ${(err as Error).stack ?? String(err)}`),
        )
        .finally(() => {
          this.inFlight.delete(id);
          this.wakeIdle();
        });
      this.inFlight.set(id, run);
    }, delayMs);
    this.scheduled.set(id, handle);
  }

  private async attempt(id: number): Promise<void> {
    if (this.closing.signal.aborted) return;
    const row = deliveryRow(this.deps.db, id);
    if (row?.status !== 'pending') return;
    // The hook is looked up at each try, so an operator who fixes a URL or removes a noisy hook
    // changes the retries still waiting too.
    let hook: HookConfig | undefined;
    try {
      hook = getHooks(this.deps.db).find((h) => h.id === row.hook_id);
    } catch (err) {
      return this.settle(row, giveUp(this.deps.db, id, (err as Error).message, this.deps.clock.now()));
    }
    if (!hook) {
      const msg = `The hook "${row.hook_id}" was removed from the settings before this delivery was made.`;
      return this.settle(row, giveUp(this.deps.db, id, msg, this.deps.clock.now()));
    }

    const error = await this.send(hook, row);
    // Closing mid-try is not the hook's failure: leave the delivery pending for the next start.
    if (this.closing.signal.aborted) return;
    const now = this.deps.clock.now();
    if (error === null) {
      return this.settle(
        row,
        recordTry(this.deps.db, id, { status: 'delivered', error: null, nextAttemptAt: null, now }),
      );
    }
    const tries = row.attempts + 1;
    const retries = hook.retries ?? DEFAULT_HOOK_RETRIES;
    if (tries <= retries) {
      const delay = fullJitterDelay(tries - 1, this.backoff, this.deps.random);
      recordTry(this.deps.db, id, { status: 'pending', error, nextAttemptAt: now + delay, now });
      this.schedule(id, delay);
      return;
    }
    this.deps.log(
      `hooks: "${hook.id}" (${hookTarget(hook)}) gave up on job ${row.job_id} after ${tries} tries: ${error}`,
    );
    return this.settle(row, recordTry(this.deps.db, id, { status: 'failed', error, nextAttemptAt: null, now }));
  }

  /** One try. Resolves to null on success or the failure in words; never rejects. */
  private async send(hook: HookConfig, row: DeliveryRow): Promise<string | null> {
    const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    // The deadline bounds real I/O (a program, a socket), so it is wall-clock time, not the
    // injected clock; the runner's own retry waits go through the injected timers.
    const deadline = AbortSignal.timeout(timeoutMs);
    const payload: HookPayload =
      row.event === 'late'
        ? { event: 'late', delivery_id: row.id, hook_id: hook.id, group: JSON.parse(row.payload_json) as ForecastGroup }
        : { event: row.event, delivery_id: row.id, hook_id: hook.id, job: JSON.parse(row.payload_json) as JobView };
    const ctx: SendContext = {
      body: JSON.stringify(payload),
      event: row.event,
      deliveryId: row.id,
      jobId: row.job_id,
      timeoutMs,
      signal: AbortSignal.any([deadline, this.closing.signal]),
      timedOut: () => deadline.aborted,
      env: this.deps.env ?? NO_ENV,
    };
    try {
      if (hook.kind === 'command') await sendCommand(hook, ctx);
      else await sendWebhook(hook, ctx);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private settle(row: DeliveryRow, changed: boolean): void {
    if (!changed || !this.deps.onSettled) return;
    const after = deliveryRow(this.deps.db, row.id);
    if (!after) return;
    try {
      this.deps.onSettled(toDeliveryView(after));
    } catch (err) {
      this.deps.log(`hooks: a delivery listener failed: ${(err as Error).message}`);
    }
  }
}
