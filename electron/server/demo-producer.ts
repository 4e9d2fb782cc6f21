/**
 * The demo farm's producer: it keeps `shotfarm serve --demo` alive by playing a studio that sends
 * work. Every interval it imports a batch of new shots (some with a motion stage, now and then a
 * rush) into the demo's rolling episodes, and now and then scripts a failure into one simulated
 * GPU (out of memory, a node error, a dropped socket, a 500, a hang). It is demo-only: it talks to
 * the engine through the contract like any client and to the simulators through their test API.
 *
 * Bounded so a demo left running cannot grow its database without limit: no batch while the
 * waiting jobs reach `maxWaiting`, batches trimmed so they never pass it, and nothing more once the
 * database holds `maxTotalJobs` jobs (the producer then stops and says so).
 */
import { BACKLOG_STATES } from '../../shared/job-states.js';
import type { Engine } from '../engine/engine.js';
import { DEMO_PROJECT, demoEpisode, demoShotList, type DemoShot } from './demo-shots.js';

/** What the producer needs of a simulated GPU (SimInstance satisfies it). */
export interface ScriptableGpu {
  readonly name: string;
  setScript(words: string[]): void;
}

/** Timers, injectable so tests fire ticks themselves. */
export interface ProducerTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface DemoProducerOptions {
  engine: Pick<Engine, 'call'>;
  gpus: ScriptableGpu[];
  /** Folder the shot lists' plates are relative to (the demo's import folder). */
  baseDir: string;
  random: () => number;
  log: (line: string) => void;
  intervalMs?: number;
  minShots?: number;
  maxShots?: number;
  /** Jobs pending, queued, running or waiting to retry above which no batch is added. */
  maxWaiting?: number;
  /** Jobs in the database at which the producer stops for good. */
  maxTotalJobs?: number;
  /** Shots per episode before the next `demo-NN` episode starts. */
  shotsPerEpisode?: number;
  /** Chance, per tick, that a simulated GPU gets a scripted failure. */
  failureChance?: number;
  timer?: ProducerTimer;
}

export interface TickResult {
  added: number;
  shots: number;
  episode: string | null;
  /** Why no (or a smaller) batch was added, when a bound applied. */
  limited: 'waiting' | 'total' | null;
  scripted: { gpu: string; word: string } | null;
}

export interface DemoProducer {
  /** One batch now (the timer calls this; tests too). */
  tick(): Promise<TickResult>;
  close(): void;
}

export const DEMO_PRODUCER_DEFAULTS = {
  intervalMs: 60_000,
  minShots: 4,
  maxShots: 8,
  maxWaiting: 40,
  maxTotalJobs: 2_000,
  shotsPerEpisode: 40,
  failureChance: 0.5,
} as const;

/** Failure words, weighted: transient ones more often than the permanent error and the slow-to-clear hang. */
const FAILURE_WORDS = ['oom', 'oom', 'drop', 'drop', '500', 'error', 'hang'];

const timers: ProducerTimer = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

/** Starts producing; the first batch comes after one interval (the first episode is already there). */
export async function startDemoProducer(o: DemoProducerOptions): Promise<DemoProducer> {
  const c = { ...DEMO_PRODUCER_DEFAULTS, ...stripUndefined(o) };
  const timer = o.timer ?? timers;
  let closed = false;
  let stopped = false;
  let handle: unknown = null;
  // Each run of the demo opens a new episode after the newest one in the database.
  let episodeNo = (await newestDemoEpisode(o.engine)) + 1;
  let nextShot = 1;
  const pick = (n: number): number => Math.min(n - 1, Math.floor(o.random() * n));

  const batch = (count: number, budget: number): DemoShot[] => {
    const shots: DemoShot[] = [];
    let jobs = 0;
    const rushAt = o.random() < 0.3 ? pick(count) : -1;
    for (let i = 0; i < count; i++) {
      if (jobs + 1 > budget) break;
      // A shot that would pass the budget with its motion stage comes as a keyframe alone, so the
      // bound is met exactly rather than approached forever.
      const motion = o.random() < 0.35 && jobs + 2 <= budget;
      jobs += motion ? 2 : 1;
      shots.push({ n: nextShot + i, motion, rush: i === rushAt });
    }
    return shots;
  };

  const scriptFailure = (): TickResult['scripted'] => {
    if (o.gpus.length === 0 || o.random() >= c.failureChance) return null;
    const gpu = o.gpus[pick(o.gpus.length)]!;
    const word = FAILURE_WORDS[pick(FAILURE_WORDS.length)]!;
    // A few normal prompts first, so the failure lands amid the new batch rather than on the next prompt.
    gpu.setScript([...Array.from({ length: 1 + pick(3) }, () => 'ok'), word]);
    return { gpu: gpu.name, word };
  };

  const tick = async (): Promise<TickResult> => {
    const none: TickResult = { added: 0, shots: 0, episode: null, limited: null, scripted: null };
    if (closed || stopped) return none;
    const status = await o.engine.call('farm.status', {});
    const total = Object.values(status.jobsByState).reduce((a, b) => a + b, 0);
    // The farm's own backlog (held and finished jobs wait for no one here): what maxWaiting bounds.
    const waiting = BACKLOG_STATES.reduce((a, s) => a + status.jobsByState[s], 0);
    if (total >= c.maxTotalJobs) {
      stopped = true;
      o.log(
        `demo producer: the demo database holds ${total} jobs (limit ${c.maxTotalJobs}); adding no more shots. Restart the demo for a fresh farm.`,
      );
      return { ...none, limited: 'total' };
    }
    const room = { waiting: c.maxWaiting - waiting, total: c.maxTotalJobs - total };
    const binding: TickResult['limited'] = room.total <= room.waiting ? 'total' : 'waiting';
    const budget = Math.min(room.waiting, room.total);
    if (nextShot > c.shotsPerEpisode) {
      episodeNo += 1;
      nextShot = 1;
    }
    const wanted = Math.min(c.minShots + pick(c.maxShots - c.minShots + 1), c.shotsPerEpisode - nextShot + 1);
    const shots = budget > 0 ? batch(wanted, budget) : [];
    const limited = shots.length < wanted ? binding : null;
    if (shots.length === 0) return { ...none, limited, scripted: scriptFailure() };
    const episode = demoEpisode(episodeNo);
    const content = demoShotList(episode, shots, 'demo producer');
    const preview = await o.engine.call('import.preview', {
      fileName: `demo-producer-${episode}.json`,
      content,
      baseDir: o.baseDir,
    });
    const added =
      preview.counts.new > 0
        ? (await o.engine.call('import.commit', { previewId: preview.previewId })).jobIds.length
        : 0;
    nextShot += shots.length;
    const scripted = scriptFailure();
    const rush = shots.some((sh) => sh.rush) ? ', 1 rush' : '';
    o.log(
      `demo producer: ${added} jobs from ${shots.length} shots into ${DEMO_PROJECT}/${episode}${rush}` +
        `${preview.counts.error ? `, ${preview.counts.error} rows refused` : ''}${scripted ? `; scripted '${scripted.word}' on ${scripted.gpu}` : ''}`,
    );
    return { added, shots: shots.length, episode, limited, scripted };
  };

  const schedule = (): void => {
    if (closed || stopped) return;
    handle = timer.set(() => {
      handle = null;
      // The next tick is scheduled when this one ends, so two batches never overlap.
      tick()
        .catch((e: unknown) => o.log(`demo producer: ${e instanceof Error ? e.message : String(e)}`))
        .finally(schedule);
    }, c.intervalMs);
  };
  schedule();
  return {
    tick,
    close() {
      closed = true;
      if (handle !== null) timer.clear(handle);
      handle = null;
    },
  };
}

/** The highest `demo-NN` episode that has jobs (0 when none); they are numbered without gaps. */
async function newestDemoEpisode(engine: Pick<Engine, 'call'>): Promise<number> {
  let n = 0;
  for (;;) {
    const page = await engine.call('jobs.list', {
      filter: { project: DEMO_PROJECT, episode: demoEpisode(n + 1) },
      limit: 1,
    });
    if (page.total === 0) return n;
    n += 1;
  }
}

/** Options given as `undefined` keep their defaults (a plain spread would overwrite them). */
function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
