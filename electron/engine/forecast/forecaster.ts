/**
 * The forecast as the farm runs (docs/forecast.md): the unfinished jobs played forward over the
 * healthy workstations (simulate.ts) with the run-time model (run-model.ts), folded into groups
 * (forecast-groups.ts), kept until something changes. Cheap by construction, whatever the backlog:
 * each project's first HEAD_PER_PROJECT waiting jobs are read and played one by one (each gets its
 * own ETA); the rest are counted in SQL per group × priority × template and played as buckets, so
 * one computation reads a few thousand rows, not every waiting job. Computed at most every
 * `minGapMs` after a change and every `maxAgeMs` anyway (time passing moves a forecast only when
 * runs overrun) — never per look. A group that turns late is announced once (`forecast.late`, its
 * mark kept in forecast_late so a restart does not announce it again) and, when the farm setting
 * `forecast_bump_late` is on, its waiting jobs go to the top of their priority class.
 */
import { isHealthy, type InstanceView } from '../../../shared/domain.js';
import { hasStarted, type LiveAttempt } from '../../../shared/live-attempt.js';
import type { ForecastBurst, ForecastGroup, ForecastView } from '../../../shared/forecast.js';
import { PRIORITY_VALUE } from '../../../shared/priorities.js';
import type { Clock, Timers } from '../clock.js';
import type { EventBus } from '../event-bus.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import { inTransaction, type Db } from '../store/database.js';
import {
  clearGroupLate,
  episodeCounts,
  forecastBuckets,
  forecastHeadRows,
  forecastRunningRows,
  groupWaitingJobs,
  lateGroups,
  markGroupLate,
  setOrder,
  type ForecastBucketRow,
  type ForecastJobRow,
} from '../store/job-store.js';
import type { TemplateCache } from '../templates/template-cache.js';
import { openRuns, totalSpendSince } from '../store/attempt-store.js';
import { utcDayStart } from '../pools/runpod/runpod-cost.js';
import { listInstanceRows } from '../store/instance-store.js';
import { checkpointOfJob } from '../templates/checkpoint.js';
import { runEstimates } from '../queries/run-estimates.js';
import { bucketOf } from './run-buckets.js';
import { buildGroups, type EpisodeCount, type UnfinishedJob } from './forecast-groups.js';
import { sequenceOf } from '../../../shared/job-detail.js';
import { setForecastEnds } from './forecast-ends.js';
import { play, type SimEnd, type SimFigure, type SimInput, type SimJob, type SimStation } from './simulate.js';
import { remedyFor } from './remedy.js';
import { cloudCapacity } from './cloud-capacity.js';
import type { RunModel } from './run-model.js';

const GB = 1024 ** 3;

/** Per project, the first this many waiting jobs (dispatch order) are played one by one, each with its own ETA. */
export const HEAD_PER_PROJECT = 2_000;
/** The rest are played in pieces of at most this many like jobs, so pieces of one priority interleave by enqueue time and projects by fair share. */
const PIECE = 500;

/** A waiting job, or a piece of a bucket of them, with the group it counts in. */
interface Unit extends UnfinishedJob {
  sim: SimJob;
}

/** What a bucket of the deep backlog is counted by (job-store.ts forecastBuckets), as one string. */
function bucketKey(
  b: Pick<
    ForecastBucketRow,
    'project' | 'episode' | 'sequence' | 'priority' | 'template_id' | 'vram_gb' | 'tags_json' | 'waits'
  >,
): string {
  return [b.project, b.episode, b.sequence, b.priority, b.template_id, b.vram_gb, b.tags_json, b.waits].join('\u001f');
}

export interface ForecasterDeps {
  db: Db;
  clock: Clock;
  timers: Timers;
  events: EventBus;
  settings: SettingsReader;
  templates: TemplateCache;
  /** The workstations as the farm holds them (or the store's cards when no farm runs here). */
  instances(): InstanceView[];
  /** Whether the farm dispatches (a paused or stopped farm forecasts nothing). */
  dispatching(): boolean;
  /** The farm's live view of a job's running attempt (its phase and real start); absent or null with no farm here. */
  liveRun?(jobId: string): LiveAttempt | null;
  /** Jobs whose order the forecast changed (a late group's bump): announce them, let the farm look. */
  announce(ids: string[]): void;
  log(message: string): void;
  /** Least time between computations after a change, and the longest a forecast is kept. */
  minGapMs?: number;
  maxAgeMs?: number;
}

/** What the late bump raises a job to: the top of its class (normal 100–199 → 199), never into the next. */
export function classTop(priority: number): number {
  const base = priority >= PRIORITY_VALUE.rush ? PRIORITY_VALUE.rush : Math.floor(priority / 100) * 100;
  return base + 99;
}

const INTERNAL = { internal: true };

export class Forecaster {
  private view: ForecastView | null = null;
  private dirty = true;
  private timer: unknown = null;
  private readonly off: (() => void)[] = [];

  constructor(private readonly deps: ForecasterDeps) {}

  /** How long the last computation took: the gap grows with it, so forecasting never takes more than a tenth of the engine's time. */
  private lastCostMs = 0;

  private get minGapMs(): number {
    return Math.max(this.deps.minGapMs ?? 10_000, this.lastCostMs * 10);
  }
  private get maxAgeMs(): number {
    return this.deps.maxAgeMs ?? 60_000;
  }

  /** Follows the farm: recomputes on changes (at most every minGapMs) and every maxAgeMs. */
  start(): void {
    const mark = (): void => {
      this.dirty = true;
    };
    this.off.push(
      // A follower, not an audience: the engine marks it for another engine's changes itself (`changed`).
      this.deps.events.on('job.changed', mark, INTERNAL),
      this.deps.events.on('jobs.bulkChanged', mark, INTERNAL),
      this.deps.events.on('instance.changed', mark, INTERNAL),
    );
    const tick = (): void => {
      this.timer = this.deps.timers.setTimeout(tick, Math.min(this.minGapMs, 5_000));
      try {
        this.current();
      } catch (err) {
        this.deps.log(`the forecast could not be computed: ${(err as Error).message}`);
      }
    };
    this.timer = this.deps.timers.setTimeout(tick, 0);
  }

  stop(): void {
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer);
    this.timer = null;
    for (const f of this.off.splice(0)) f();
  }

  /** Something changed (an import, a bump) outside the events this follows. */
  changed(): void {
    this.dirty = true;
  }

  /** The forecast: the kept one while fresh, else computed now. */
  current(): ForecastView {
    const now = this.deps.clock.now();
    const v = this.view;
    if (v && now - v.at < Math.max(this.maxAgeMs, this.minGapMs) && !(this.dirty && now - v.at >= this.minGapMs))
      return v;
    return this.compute(now);
  }

  /** `exact`: every waiting job played one by one (the bench's yardstick for the buckets; slow at studio scale). */
  compute(now: number, o: { exact?: boolean } = {}): ForecastView {
    const view = this.computeOnce(now, o.exact === true);
    this.lastCostMs = Math.max(0, this.deps.clock.now() - now);
    return view;
  }

  private computeOnce(now: number, exact: boolean): ForecastView {
    this.dirty = false;
    const { db } = this.deps;
    const model = runEstimates(db).rebuild(now);
    const running = forecastRunningRows(db);
    // A running job's real start is its open attempt's (null while it waits on its GPU).
    const starts = new Map(openRuns(db).map((r) => [r.job_id, r.started_at]));
    const { stations, ends: runningEnds, cloudFree } = this.runningState(running, starts, now, model);
    const slots = stations.reduce((n, s) => n + s.freeAt.length, 0);
    const note = !this.deps.dispatching()
      ? 'the farm is not dispatching (paused, stopped, or not running): no forecast'
      : slots === 0
        ? 'no healthy workstation: no forecast'
        : null;
    const units = this.waitingUnits(exact);
    const cloud = cloudCapacity({
      endpoints: this.deps.instances(),
      free: cloudFree,
      now,
      burstAfterS: this.deps.settings.get('burst_after_s'),
      budgetUsdPerDay: this.deps.settings.get('burst_budget_usd_per_day'),
      spentTodayUsd: () => totalSpendSince(db, utcDayStart(now)),
      delayOf: (id) => model.delayOf(id),
    });
    const input: SimInput = {
      now,
      stations,
      jobs: units.map((u) => u.sim),
      figure: figureWithRetries(model),
      fallbackMs: 60_000,
      lossPerGpuHour: model.lossPerGpuHour(),
      prefetch: this.deps.settings.get('prefetch') === 1,
      ...(cloud.sim ? { burst: cloud.sim } : {}),
    };
    const played = note === null ? play(input) : null;
    const ends = played?.ends ?? new Map<string, SimEnd>();
    // Without a forecast (paused, no workstation) the cloud was not counted either: nothing to say of it.
    let burst: ForecastBurst | null = note === null ? cloud.view : null;
    if (burst?.counted && played?.cloud)
      burst = {
        ...burst,
        jobs: played.cloud.jobs,
        costUsd: Math.round(played.cloud.costUsd * 100) / 100,
        budgetOutAt: played.cloud.budgetOutAt,
      };
    // Running jobs end when their slot is first free (stations() put them there).
    if (note === null) for (const [id, e] of runningEnds) ends.set(id, e);
    setForecastEnds(db, ends);
    const counts: EpisodeCount[] = [];
    const unfinished: UnfinishedJob[] = [...running, ...units];
    const episodes = new Map<string, { project: string; episode: string }>();
    for (const r of unfinished)
      episodes.set(`${r.project}\u001f${r.episode}`, { project: r.project, episode: r.episode });
    for (const e of episodes.values())
      for (const c of episodeCounts(db, e.project, e.episode))
        counts.push({
          project: e.project,
          episode: e.episode,
          sequence: c.sequence,
          state: c.state,
          n: c.n,
          lastFinished: c.last_finished,
          firstDue: c.first_due,
        });
    const groups = buildGroups(counts, unfinished, ends);
    // What would make a late group on time: at most three what-ifs per computation (each a simulation).
    let whatIfs = 0;
    for (const g of groups) {
      if (!g.late || g.kind === 'project' || note !== null) continue;
      g.remedy = remedyFor(g, input, units, slots, whatIfs++ < 3);
    }
    this.view = { at: now, slots, note, groups, burst };
    this.deps.events.emit('forecast.changed', { forecast: this.view });
    // Only the engine that follows the farm announces (a one-shot `status` must not use up the news).
    // Nor without a forecast: a paused farm is not news for every group with a due time.
    if (this.timer !== null && note === null) this.lateTurns(groups, now);
    return this.view;
  }

  /**
   * The waiting jobs as the simulation plays them: each project's head one by one, the rest (past
   * HEAD_PER_PROJECT) as SQL counts less the head, in pieces spread over their enqueue times.
   */
  private waitingUnits(exact: boolean): Unit[] {
    const { db } = this.deps;
    const units: Unit[] = [];
    const heads: ForecastJobRow[] = [];
    // One scan counts every waiting job; only the heads are read row by row.
    const buckets = forecastBuckets(db);
    const perProject = new Map<string, number>();
    for (const b of buckets) perProject.set(b.project, (perProject.get(b.project) ?? 0) + b.n);
    let deep = false;
    for (const [project, n] of perProject) {
      const rows = forecastHeadRows(db, project, exact ? n : HEAD_PER_PROJECT);
      for (const r of rows) {
        heads.push(r);
        units.push({
          id: r.id,
          project: r.project,
          episode: r.episode,
          shot: r.shot,
          state: r.state,
          sim: this.simJob(r),
        });
      }
      deep ||= rows.length < n;
    }
    if (!deep) return units;
    // The head's share of each bucket, and the latest enqueue time it holds: the rest come after.
    const inHead = new Map<string, { n: number; last: number }>();
    for (const r of heads) {
      const key = bucketKey({
        ...r,
        sequence: sequenceOf(r.shot) ?? '',
        waits: r.state === 'pending' && r.depends_on !== null ? 1 : 0,
      });
      const h = inHead.get(key);
      if (h) {
        h.n++;
        h.last = Math.max(h.last, r.enqueued_at);
      } else inHead.set(key, { n: 1, last: r.enqueued_at });
    }
    for (const [i, b] of buckets.entries()) {
      const h = inHead.get(bucketKey(b));
      const left = b.n - (h?.n ?? 0);
      if (left <= 0) continue;
      const t = this.deps.templates.get(b.template_id);
      const checkpoint = t ? checkpointOfJob(t.workflow, t.parameters, '{}') : null;
      const from = Math.max(b.first_enqueued, h?.last ?? b.first_enqueued);
      const pieces = Math.ceil(left / PIECE);
      for (let k = 0; k < pieces; k++) {
        const n = Math.min(PIECE, left - k * PIECE);
        const id = `bucket:${i}:${k}`;
        units.push({
          id,
          project: b.project,
          episode: b.episode,
          shot: '',
          sequence: b.sequence,
          state: 'queued',
          n,
          sim: {
            id,
            project: b.project,
            priority: b.priority,
            rank: 0,
            enqueuedAt: from + ((b.last_enqueued - from) * k) / pieces,
            templateId: b.template_id,
            // Any bucket: the template's runs on each GPU model, whatever their sizes (run-model.ts).
            bucket: '*',
            vramGb: b.vram_gb,
            tags: JSON.parse(b.tags_json) as string[],
            checkpoint,
            dependsOn: null,
            count: n,
            waitsOnOthers: b.waits === 1,
          },
        });
      }
    }
    return units;
  }

  /** Announces groups that turned late (once), clears marks of groups on time again, bumps when allowed. */
  private lateTurns(groups: readonly ForecastGroup[], now: number): void {
    const { db } = this.deps;
    const marked = lateGroups(db);
    const bump = this.deps.settings.get('forecast_bump_late') === 1;
    const bumped: string[] = [];
    for (const g of groups) {
      if (!g.late) {
        if (marked.has(g.key)) clearGroupLate(db, g.key);
        continue;
      }
      if (!markGroupLate(db, g.key, now)) continue;
      this.deps.events.emit('forecast.late', { group: g });
      this.deps.log(`forecast: ${g.key} is late for its due time`);
      if (bump && g.kind !== 'project') bumped.push(...this.bumpGroup(g, now));
    }
    for (const key of marked.keys()) if (!groups.some((g) => g.key === key)) clearGroupLate(db, key);
    if (bumped.length) {
      this.dirty = true;
      this.deps.announce(bumped);
    }
  }

  /** The group's waiting jobs to the top of their priority class, each with its order-change row. */
  private bumpGroup(g: ForecastGroup, now: number): string[] {
    const ids: string[] = [];
    if (g.episode === null) return ids;
    const { db } = this.deps;
    inTransaction(db, () => {
      for (const r of groupWaitingJobs(db, g.project, g.episode as string, g.sequence)) {
        const top = classTop(r.priority);
        if (r.priority >= top) continue;
        setOrder(
          db,
          r.id,
          { priority: r.priority, rank: r.rank },
          { priority: top, rank: r.rank },
          'bump',
          now,
          'forecast',
        );
        ids.push(r.id);
      }
    });
    return ids;
  }

  private simJob(r: ForecastJobRow): SimJob {
    const t = this.deps.templates.get(r.template_id);
    return {
      id: r.id,
      project: r.project,
      priority: r.priority,
      rank: r.rank,
      enqueuedAt: r.enqueued_at,
      templateId: r.template_id,
      bucket: bucketOf(r.params_json),
      vramGb: r.vram_gb,
      tags: JSON.parse(r.tags_json) as string[],
      checkpoint: t ? checkpointOfJob(t.workflow, t.parameters, r.params_json) : null,
      dependsOn: r.state === 'pending' ? r.depends_on : null,
    };
  }

  /**
   * A running job's expected end: from its real start (or `from`: now, or for a prompt waiting on
   * its GPU behind another, when that one is expected to end) plus its template's median there.
   */
  private runningEnd(
    r: ForecastJobRow,
    startedAt: number | null,
    now: number,
    gpuOf: ReadonlyMap<string, string | null>,
    from = now,
  ): SimEnd {
    const gpu = r.instance_id ? gpuOf.get(r.instance_id) : null;
    const f = gpu ? runEstimates(this.deps.db).model(now).figure(r.template_id, gpu, bucketOf(r.params_json)) : null;
    const start = startedAt ?? from;
    const p50Ms = f?.p50Ms ?? 60_000;
    // A run past its median ends soon, not now: a tenth of a typical run from now (at most a second).
    const p50 = Math.max(now + Math.min(1_000, p50Ms / 10), start + p50Ms);
    const p90 = Math.max(p50, start + (f?.p90Ms ?? 90_000));
    return { p50, p90, stationId: r.instance_id };
  }

  /** When the job's prompt started on its GPU: the farm's live view first (the store has it only once saved), then the store; null while it waits. */
  private startOf(jobId: string, stored: ReadonlyMap<string, number | null>): number | null {
    const live = this.deps.liveRun?.(jobId);
    if (live) return hasStarted(live.phase) ? (live.startedAt ?? stored.get(jobId) ?? null) : null;
    return stored.get(jobId) ?? null;
  }

  /**
   * The running jobs' ends and each workstation's slots free when they end. A workstation runs its
   * slots' prompts; one more may wait there behind them (prefetch): it starts when the first slot
   * frees, not now beside them, and its slot is free only after it.
   */
  private runningState(
    rows: readonly ForecastJobRow[],
    stored: ReadonlyMap<string, number | null>,
    now: number,
    model: RunModel,
  ): { stations: SimStation[]; ends: Map<string, SimEnd>; cloudFree: Map<string, number[]> } {
    const instances = this.deps.instances();
    // Built once per computation: the views are not cheap, and every running job asks for its GPU.
    const gpuOf = new Map(instances.map((i) => [i.id, i.gpuName]));
    const byInstance = new Map<string, ForecastJobRow[]>();
    const ends = new Map<string, SimEnd>();
    for (const r of rows) {
      if (!r.instance_id) {
        ends.set(r.id, this.runningEnd(r, this.startOf(r.id, stored), now, gpuOf));
        continue;
      }
      const on = byInstance.get(r.instance_id);
      if (on) on.push(r);
      else byInstance.set(r.instance_id, [r]);
    }
    const free = new Map<string, { at: number; vari: number }[]>();
    // Where a prompt waits behind the running ones, the next place opens when it starts.
    const placeOpens = new Map<string, number>();
    for (const [id, on] of byInstance) {
      const slotCount = Math.max(1, instances.find((i) => i.id === id)?.maxConcurrency ?? 1);
      const started = on.map((r) => ({ r, at: this.startOf(r.id, stored) }));
      // Started prompts hold the slots (earliest first); the rest wait behind them.
      started.sort((x, y) => (x.at ?? Number.POSITIVE_INFINITY) - (y.at ?? Number.POSITIVE_INFINITY));
      const slots: { at: number; vari: number }[] = [];
      for (const { r, at } of started) {
        let from = now;
        let vari = 0;
        if (slots.length >= slotCount) {
          // Behind the slot that frees first.
          let k = 0;
          for (let j = 1; j < slots.length; j++)
            if ((slots[j] as { at: number }).at < (slots[k] as { at: number }).at) k = j;
          const s = slots.splice(k, 1)[0] as { at: number; vari: number };
          from = Math.max(now, s.at);
          vari = s.vari;
          placeOpens.set(id, Math.max(placeOpens.get(id) ?? now, from));
        }
        const e = this.runningEnd(r, at, now, gpuOf, from);
        const v = vari + ((e.p90 - e.p50) / 1.2816) ** 2;
        ends.set(r.id, { p50: e.p50, p90: e.p50 + 1.2816 * Math.sqrt(v), stationId: r.instance_id });
        slots.push({ at: e.p50, vari: v });
      }
      free.set(id, slots);
    }
    const loaded = new Map(listInstanceRows(this.deps.db).map((r) => [r.id, r.last_checkpoint]));
    const stations: SimStation[] = [];
    for (const i of instances) {
      if (i.kind !== 'comfyui' || i.adminState !== 'active' || !isHealthy(i.health) || !i.gpuName || !i.vram) continue;
      const taken = [...(free.get(i.id) ?? [])].sort((a, b) => a.at - b.at);
      const gap = model.gapOf(i.id);
      const freeAt: number[] = [];
      const freeVar: number[] = [];
      for (let k = 0; k < i.maxConcurrency; k++) {
        const e = taken[k];
        freeAt.push(e ? e.at : now);
        freeVar.push(e ? e.vari : 0);
      }
      stations.push({
        id: i.id,
        gpuName: i.gpuName,
        usableVramGb: (i.vram.totalBytes - i.vram.otherBytes) / GB,
        tags: i.tags,
        freeAt,
        freeVar,
        // The checkpoint it holds (the last one sent there): the next job of another one pays a load.
        lastCheckpoint: loaded.get(i.id) ?? null,
        ...(placeOpens.has(i.id) ? { placeOpensAt: placeOpens.get(i.id) as number } : {}),
        ...(gap ? { gapMs: gap.meanMs, gapSdMs: gap.sdMs } : {}),
      });
    }
    // A RunPod endpoint's workers are free when its running attempts are expected to end.
    const cloudFree = new Map([...free].map(([id, slots]) => [id, slots.map((x) => x.at)]));
    return { stations, ends, cloudFree };
  }
}

/** The run-time model's figure with what the template's retries add at the farm's observed rate. */
function figureWithRetries(model: RunModel): SimInput['figure'] {
  return (t, gpu, bucket): SimFigure | null => {
    const f = model.figure(t, gpu, bucket);
    if (!f) return null;
    const r = model.retryOf(t);
    return r.meanMs > 0 ? { ...f, retryMs: r.meanMs, retrySdMs: r.sdMs } : f;
  };
}
