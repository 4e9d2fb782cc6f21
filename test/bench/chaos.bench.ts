/**
 * Chaos: the engine runs in a child process over a simulator farm in this process whose
 * instances follow random fault scripts (ok / oom / error / drop / 500 / slow) with occasional
 * server restarts; the engine is SIGKILLed at random moments (0.3–3 s after its scheduler started,
 * or for one kill in five, after spawn: during start-up and recovery) and started again, N times;
 * one end in four (--stops 0.25) is a graceful stop instead (SIGTERM: downloads in flight may
 * finish for a bounded time or are left for the next start). Then a last engine drains the queue
 * and the store is checked:
 *
 * - lost: every imported job ends completed / failed_final / timeout_kill, or is still
 *   recoverable (queued, failed_retryable, or running with its attempt open); completed jobs have
 *   their output rows;
 * - executed twice: a prompt id executed successfully more than once across the farm (the
 *   simulators' own record), unless a server restart wiped the first run's history before the
 *   engine had collected it (counted apart);
 * - recovery: spawn → scheduler started, spawn → first dispatch (target ≤ 5 s);
 * - integrity: PRAGMA integrity_check, every job's event chain consistent with its state, no
 *   attempt left open for a finished job, at most one completed attempt per job.
 */
import { fork } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { seededRandom } from '../../electron/engine/clock.js';
import { DB_FILE_NAME } from '../../electron/engine/store/database.js';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { importThroughContract, openBenchEngine, shotListJson } from './lib/bench-engine.js';
import { runChaosEngines } from './chaos-engines.bench.js';
import { TSX_EXEC_ARGV } from './lib/remote-farm.js';
import { executions, instrumentSim, SimEventLog } from './lib/sim-events.js';
import { absNow, round, sleep, summary } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark, type Figure } from './lib/types.js';

const ENGINE = new URL('./lib/chaos-engine.ts', import.meta.url).pathname;
const TERMINAL = new Set(['completed', 'failed_final', 'timeout_kill', 'cancelled']);
const WORDS: [string, number][] = [
  ['ok', 70],
  ['oom', 8],
  ['error', 4],
  ['drop', 6],
  ['500', 6],
  ['slow', 6],
];

function word(rnd: () => number): string {
  let x = rnd() * 100;
  for (const [w, p] of WORDS) if ((x -= p) < 0) return w;
  return 'ok';
}

interface Boot {
  spawnAt: number;
  /** The engine's code started running (Node and module loading done). */
  loadedAt: number | null;
  readyAt: number | null;
  dispatchAt: number | null;
  killedAt: number | null;
}

function spawnEngine(dir: string): {
  boot: Boot;
  kill(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
  exited: Promise<void>;
  ready: Promise<void>;
} {
  const boot: Boot = { spawnAt: absNow(), loadedAt: null, readyAt: null, dispatchAt: null, killedAt: null };
  const child = fork(ENGINE, [dir, String(boot.spawnAt)], {
    execArgv: TSX_EXEC_ARGV,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.on('message', (m) => {
    const msg = m as { t: string; at: number; loadedAt?: number };
    if (msg.t === 'ready') {
      boot.readyAt = msg.at;
      boot.loadedAt = msg.loadedAt ?? null;
      onReady();
    }
    if (msg.t === 'dispatch') boot.dispatchAt ??= msg.at;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    boot,
    exited,
    ready,
    async kill() {
      boot.killedAt = absNow();
      child.kill('SIGKILL');
      await exited;
    },
    /** A graceful stop, as Ctrl+C or a service manager sends it; killed if it outlasts its wait (3 s grace + margin). */
    async stop() {
      boot.killedAt = absNow();
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async close() {
      if (child.connected) child.send({ t: 'close' });
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

interface Check {
  integrity: string;
  states: Record<string, number>;
  lost: { id: string; state: string; why: string }[];
  unfinished: number;
  chainErrors: { id: string; why: string }[];
  openAttempts: number;
  doubleCompleted: number;
}

function checkStore(file: string): Check {
  const db = new Database(file, { readonly: true });
  try {
    const integrity = (db.pragma('integrity_check', { simple: true }) as string) ?? 'unknown';
    const jobs = db.prepare('SELECT id, state, current_attempt_id FROM jobs').all() as {
      id: string;
      state: string;
      current_attempt_id: string | null;
    }[];
    const states: Record<string, number> = {};
    for (const j of jobs) states[j.state] = (states[j.state] ?? 0) + 1;
    const openOf = new Map(
      (
        db.prepare("SELECT id, job_id FROM attempts WHERE state <> 'ended'").all() as { id: string; job_id: string }[]
      ).map((a) => [a.id, a.job_id]),
    );
    const assets = new Set(
      (db.prepare('SELECT DISTINCT job_id FROM assets').all() as { job_id: string }[]).map((r) => r.job_id),
    );
    const lost: Check['lost'] = [];
    let unfinished = 0;
    for (const j of jobs) {
      if (j.state === 'completed' && !assets.has(j.id))
        lost.push({ id: j.id, state: j.state, why: 'completed without output rows' });
      if (TERMINAL.has(j.state)) continue;
      unfinished++;
      const recoverable =
        j.state === 'queued' ||
        j.state === 'failed_retryable' ||
        j.state === 'pending' ||
        j.state === 'held' ||
        (j.state === 'running' && j.current_attempt_id !== null && openOf.has(j.current_attempt_id));
      if (!recoverable)
        lost.push({
          id: j.id,
          state: j.state,
          why: 'not terminal and not recoverable (running without an open attempt)',
        });
    }
    const chainErrors: Check['chainErrors'] = [];
    const events = db.prepare('SELECT job_id, from_state, to_state FROM job_events ORDER BY job_id, id').all() as {
      job_id: string;
      from_state: string | null;
      to_state: string;
    }[];
    const byJob = new Map<string, { from_state: string | null; to_state: string }[]>();
    for (const e of events) {
      let l = byJob.get(e.job_id);
      if (!l) byJob.set(e.job_id, (l = []));
      l.push(e);
    }
    for (const j of jobs) {
      const chain = byJob.get(j.id) ?? [];
      if (chain.length === 0 || chain[0]?.from_state !== null) {
        chainErrors.push({ id: j.id, why: 'no creation event' });
        continue;
      }
      for (let i = 1; i < chain.length; i++) {
        if (chain[i]?.from_state !== chain[i - 1]?.to_state) {
          chainErrors.push({
            id: j.id,
            why: `event ${i}: from ${chain[i]?.from_state} after ${chain[i - 1]?.to_state}`,
          });
          break;
        }
      }
      if (chain[chain.length - 1]?.to_state !== j.state)
        chainErrors.push({ id: j.id, why: `last event says ${chain[chain.length - 1]?.to_state}, job is ${j.state}` });
    }
    const openAttempts = (
      db
        .prepare(`SELECT COUNT(*) AS n FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE a.state <> 'ended'
      AND j.state IN ('completed', 'failed_final', 'timeout_kill', 'cancelled')`)
        .get() as { n: number }
    ).n;
    const doubleCompleted = (
      db
        .prepare(
          "SELECT COUNT(*) AS n FROM (SELECT job_id FROM attempts WHERE outcome = 'completed' GROUP BY job_id HAVING COUNT(*) > 1)",
        )
        .get() as { n: number }
    ).n;
    return { integrity, states, lost, unfinished, chainErrors, openAttempts, doubleCompleted };
  } finally {
    db.close();
  }
}

export const chaosBench: Benchmark = {
  name: 'chaos',
  description:
    'engine SIGKILLed or stopped gracefully at random moments over a faulty farm: lost, executed twice, recovery, integrity',
  onlyByName: true,
  async run(args) {
    // `--engines N`: several engines on one PostgreSQL farm (chaos-engines.bench.ts).
    if (args.flags['engines'] !== undefined) return runChaosEngines(args);
    const { log } = args;
    const { kills, seed, stops } = numberFlags(args, { kills: 200, seed: 1, stops: 0.25 });
    const rnd = seededRandom(seed);
    const gpus = 4;
    const { jobs } = numberFlags(args, { jobs: kills * 20 + 100 });
    const eventsLog = new SimEventLog();
    const sims: SimInstance[] = [];
    for (let i = 0; i < gpus; i++) {
      const script = Array.from({ length: Math.ceil((jobs * 1.5) / gpus) + 50 }, () => word(rnd));
      const sim = await startSimInstance({
        name: `c${i}`,
        script,
        duration: { fixedMs: 80, randomMs: [0, 220], seed: seed * 10 + i },
      });
      instrumentSim(sim, i, eventsLog);
      sims.push(sim);
    }
    const restarts: { i: number; at: number }[] = [];
    const be = await openBenchEngine({ instances: sims.map((s) => ({ url: s.url })) });
    const dir = be.dir;
    const file = join(dir, DB_FILE_NAME);
    try {
      const r = await importThroughContract(be.engine, shotListJson(jobs));
      if (r.ids.length !== jobs) throw new Error(`imported ${r.ids.length} of ${jobs}`);
      await be.engine.close();
      log(
        `${jobs} jobs imported; ${kills} kills or stops (${Math.round(stops * 100)} % graceful) over ${gpus} faulty simulators (seed ${seed})`,
      );
      let gracefulStops = 0;

      const boots: Boot[] = [];
      const t0 = performance.now();
      for (let k = 0; k < kills; k++) {
        const e = spawnEngine(dir);
        boots.push(e.boot);
        // Most kills land while the engine works (its life counted from scheduler start); one in
        // five lands during start-up and recovery (counted from spawn).
        if (rnd() >= 0.2) await Promise.race([e.ready, e.exited, sleep(15_000)]);
        const lifeMs = 300 + rnd() * 2700;
        if (rnd() < 0.1) {
          const i = Math.floor(rnd() * gpus);
          const at = rnd() * lifeMs;
          setTimeout(() => {
            restarts.push({ i, at: absNow() });
            void sims[i]?.restart();
          }, at);
        }
        await Promise.race([sleep(lifeMs), e.exited]);
        if (rnd() < stops) {
          gracefulStops++;
          await e.stop();
        } else await e.kill();
        if ((k + 1) % 10 === 0) log(`${k + 1} kills (${round((performance.now() - t0) / 1000, 0)} s)`);
      }
      await sleep(200); // let a pending restart land before the final run
      log('final engine: draining the queue');
      const last = spawnEngine(dir);
      boots.push(last.boot);
      const drainDeadline = Date.now() + Math.max(120_000, jobs * 150);
      for (;;) {
        const db = new Database(file, { readonly: true });
        const left = (
          db
            .prepare(
              "SELECT COUNT(*) AS n FROM jobs WHERE state NOT IN ('completed', 'failed_final', 'timeout_kill', 'cancelled')",
            )
            .get() as { n: number }
        ).n;
        db.close();
        if (left === 0 || Date.now() > drainDeadline) break;
        await sleep(500);
      }
      await last.close();

      const check = checkStore(file);
      // Executed twice: successful executions of the same prompt id anywhere on the farm.
      const ok = executions(eventsLog.events).filter((x) => x.outcome === 'success');
      const byId = new Map<string, typeof ok>();
      for (const x of ok) {
        let l = byId.get(x.id);
        if (!l) byId.set(x.id, (l = []));
        l.push(x);
      }
      const twice: { id: string; runs: { i: number; end: number }[]; afterRestart: boolean }[] = [];
      for (const [id, runs] of byId) {
        if (runs.length < 2) continue;
        runs.sort((a, b) => a.end - b.end);
        const first = runs[0] as (typeof runs)[number];
        const second = runs[1] as (typeof runs)[number];
        const afterRestart = restarts.some((rs) => rs.i === first.i && rs.at >= first.end && rs.at <= second.start);
        twice.push({ id, runs: runs.map((x) => ({ i: x.i, end: round(x.end) })), afterRestart });
      }
      const unexplained = twice.filter((t) => !t.afterRestart);
      const recoveries = boots
        .filter((b) => b.dispatchAt !== null)
        .map((b) => ((b.dispatchAt as number) - b.spawnAt) / 1000);
      const readies = boots.filter((b) => b.readyAt !== null).map((b) => ((b.readyAt as number) - b.spawnAt) / 1000);
      // The split: Node + module start-up (spawn → code runs), then the engine's own recovery
      // (open the store, reconcile open attempts, probe, first claim).
      const loads = boots
        .filter((b) => b.loadedAt !== null && b.dispatchAt !== null)
        .map((b) => ((b.loadedAt as number) - b.spawnAt) / 1000);
      const engineParts = boots
        .filter((b) => b.loadedAt !== null && b.dispatchAt !== null)
        .map((b) => ((b.dispatchAt as number) - (b.loadedAt as number)) / 1000);
      const ld = summary(loads);
      const ep = summary(engineParts);
      const rec = summary(recoveries);
      const rdy = summary(readies);
      const engineLog = existsSync(join(dir, 'engine.log'))
        ? readFileSync(join(dir, 'engine.log'), 'utf8').split('\n')
        : [];
      const figures: Figure[] = [
        le('lost jobs', check.lost.length, 0, '', 0),
        le('jobs executed twice (not explained by a server restart)', unexplained.length, 0, '', 0),
        info('  ends that were graceful stops (SIGTERM) rather than SIGKILL', `${gracefulStops} of ${kills}`),
        info(
          '  executed twice after a server restart wiped history',
          `${twice.length - unexplained.length} (${restarts.length} restarts)`,
        ),
        le('recovery p99 (spawn → first dispatch)', rec.p99, 5, 's'),
        info(
          '  recovery p50 / max; spawn → scheduler started p50 / p99',
          `${rec.p50} / ${rec.max} s; ${rdy.p50} / ${rdy.p99} s (${rec.n} of ${boots.length} starts dispatched before the kill)`,
        ),
        info(
          '  of which Node + module start-up / engine (store, recovery, probe, claim) p50 / p99',
          `${ld.p50} / ${ld.p99} s; ${ep.p50} / ${ep.p99} s`,
        ),
        {
          figure: 'integrity_check',
          target: 'ok',
          measured: check.integrity,
          verdict: check.integrity === 'ok' ? 'PASS' : 'MISS',
        },
        le('event chains inconsistent with job state', check.chainErrors.length, 0, '', 0),
        le('attempts left open for finished jobs', check.openAttempts, 0, '', 0),
        le('jobs with more than one completed attempt', check.doubleCompleted, 0, '', 0),
        info('  final states', `${JSON.stringify(check.states)} (${check.unfinished} unfinished after the drain)`),
      ];
      return {
        figures,
        details: {
          kills,
          gracefulStops,
          jobs,
          seed,
          gpus,
          restarts: restarts.length,
          states: check.states,
          lost: check.lost.slice(0, 50),
          chainErrors: check.chainErrors.slice(0, 50),
          executedTwice: twice.slice(0, 50),
          recoveryS: rec,
          readyS: rdy,
          startupS: ld,
          engineRecoveryS: ep,
          simCounts: sims.map((s) =>
            Object.values(s.allCounts()).reduce(
              (a, c) => ({
                received: a.received + c.received,
                executed: a.executed + c.executed,
                failed: a.failed + c.failed,
              }),
              { received: 0, executed: 0, failed: 0 },
            ),
          ),
          engineLogTail: engineLog.filter((l) => l).slice(-40),
        },
      };
    } finally {
      await be.close();
      await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
    }
  },
};
