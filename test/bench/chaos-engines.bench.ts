/**
 * Chaos on a shared farm (#27 acceptance), `npm run bench -- chaos --engines 3`: N engine child
 * processes (lib/chaos-engine.ts, each its own data folder) on one throwaway PostgreSQL database
 * with a short workstation lease, over 8 simulated GPUs in this process. While the queue drains,
 * every 1–3 s a random engine is SIGKILLed and started again (`--kills`, default 30) and, `--freezes`
 * times (default 5), one is SIGSTOPped past its lease and SIGCONTed. Then the survivors drain and
 * the farm is checked: lost jobs, prompts executed twice (the simulators' own record), the most of
 * our prompts one server held at once (limit: running + one prefetched), every output's hash, no
 * attempt left open; the adoption time of a killed engine's workstations (kill → a new dispatch on
 * each, p50/p99, target lease_s + 5 s); and lifecycles/s with 1, 2, 3 engines without faults, twice:
 * with 20–30 ms renders (CPU-bound on a small machine: the engines, PostgreSQL and the simulators
 * share its cores) and with 500–750 ms renders (GPU-bound: the target, not slower with more engines),
 * each with where the CPU went per lifecycle (each engine, the server, the simulators) and what an
 * idle engine costs per second. `--chaos 0` runs only the comparisons.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { seededRandom } from '../../electron/engine/clock.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { judged, type LoadReport, loadLine, watchLoad } from './lib/baselines.js';
import { postgresCpuMs, processCpu } from './lib/proc-cpu.js';
import { importThroughContract, openBenchEngine, shotListJson } from './lib/bench-engine.js';
import { TSX_EXEC_ARGV } from './lib/remote-farm.js';
import { byInstance, executions, instrumentSim, SimEventLog, type SimEvent } from './lib/sim-events.js';
import { absNow, round, sleep, summary } from './lib/stats.js';
import { info, le, numberFlags, type BenchArgs, type BenchResult, type Figure } from './lib/types.js';

const ENGINE = new URL('./lib/chaos-engine.ts', import.meta.url).pathname;
const GPUS = 8;
/** Running + the one prefetched prompt of one engine (maxConcurrency 1). */
const HELD_LIMIT = 2;

interface Child {
  proc: ChildProcess;
  dir: string;
  exited: Promise<void>;
}

/** Every dispatch any engine reported: absolute time, workstation id. */
type Dispatch = { at: number; instanceId: string; jobId: string; pid: number };

/** `--cpu-prof DIR`: every engine child writes V8 CPU profiles there (a profile per thread, at a clean close). */
let cpuProfDir: string | null = null;

function spawnChild(dir: string, url: string, leaseMs: number, dispatches: Dispatch[], probeMs = 250): Child {
  const proc = fork(ENGINE, [dir, String(absNow()), url, String(leaseMs), String(probeMs)], {
    execArgv: cpuProfDir ? [...TSX_EXEC_ARGV, '--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : TSX_EXEC_ARGV,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  proc.on('message', (m) => {
    const msg = m as { t: string; at: number; instanceId?: string; jobId?: string };
    if (msg.t === 'd' && msg.instanceId)
      dispatches.push({ at: msg.at, instanceId: msg.instanceId, jobId: msg.jobId ?? '', pid: proc.pid ?? 0 });
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, dir, exited };
}

async function closeChild(c: Child): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGCONT');
  if (c.proc.connected) c.proc.send({ t: 'close' });
  await Promise.race([c.exited, sleep(10_000)]);
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await c.exited;
}

async function startSims(n: number, fixedMs: number, randomMs: number, seed: number, log: SimEventLog) {
  const sims: SimInstance[] = [];
  for (let i = 0; i < n; i++) {
    const sim = await startSimInstance({
      name: `e${i}`,
      duration: { fixedMs, randomMs: [0, randomMs], seed: seed * 10 + i },
    });
    instrumentSim(sim, i, log);
    sims.push(sim);
  }
  return sims;
}

/** A fresh farm database with the sims as workstations and `jobs` imported (through one engine, then closed). */
async function seedFarm(url: string, sims: SimInstance[], jobs: number): Promise<void> {
  const be = await openBenchEngine({ databaseUrl: url, instances: sims.map((s) => ({ url: s.url })) });
  try {
    const r = await importThroughContract(be.engine, shotListJson(jobs));
    if (r.ids.length !== jobs) throw new Error(`imported ${r.ids.length} of ${jobs}`);
  } finally {
    await be.close();
  }
}

async function unfinished(db: pg.Client): Promise<number> {
  const r = await db.query(
    "SELECT COUNT(*)::int AS n FROM jobs WHERE state NOT IN ('completed', 'failed_final', 'timeout_kill', 'cancelled')",
  );
  return (r.rows[0] as { n: number }).n;
}

async function drain(db: pg.Client, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while ((await unfinished(db)) > 0 && Date.now() < until) await sleep(250);
}

/** The most of our prompts one server held at once (accepted POST → execution end), per instance. */
function maxHeld(events: readonly SimEvent[]): number[] {
  const out: number[] = [];
  for (const [i, list] of byInstance(events)) {
    const held = new Set<string>();
    let max = 0;
    for (const e of list) {
      if (e.k === 'P' && e.s === 200) held.add(e.id);
      else if (e.k === 'E' || e.k === 'D') held.delete(e.id);
      max = Math.max(max, held.size);
    }
    out[i] = max;
  }
  return out;
}

async function chaosRun(args: BenchArgs, url: string, o: Record<string, number>) {
  const { log } = args;
  const rnd = seededRandom(o.seed as number);
  const leaseMs = (o.lease as number) * 1000;
  const events = new SimEventLog();
  // Renders long enough that the queue outlasts the kills and freezes.
  const chaosS = (o.kills as number) * 2 + (o.freezes as number) * ((o.lease as number) + 3);
  const renderMs = Math.max(100, Math.round(((chaosS * 1000 * GPUS) / (o.jobs as number)) * 1.2));
  const sims = await startSims(GPUS, Math.round(renderMs * 0.6), Math.round(renderMs * 0.8), o.seed as number, events);
  const dirs: { path: string; cleanup(): void }[] = [];
  const children: Child[] = [];
  const dispatches: Dispatch[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await seedFarm(url, sims, o.jobs as number);
    for (let e = 0; e < (o.engines as number); e++) {
      const d = makeTempDir(`shotfarm-chaos-e${e}-`);
      dirs.push(d);
      children.push(spawnChild(d.path, url, leaseMs, dispatches));
    }
    log(
      `${o.jobs} jobs, ${o.engines} engines, lease ${o.lease} s, renders ~${renderMs} ms; ${o.kills} kills, ${o.freezes} freezes`,
    );
    const adoptions: { pid: number; at: number; instanceId: string }[] = [];
    const faults: { k: 'kill' | 'stop' | 'cont'; pid: number; at: number }[] = [];
    let kills = 0;
    let freezes = 0;
    const freezeEvery = Math.max(1, Math.floor((o.kills as number) / Math.max(1, o.freezes as number)));
    const t0 = performance.now();
    while (kills < (o.kills as number) || freezes < (o.freezes as number)) {
      if ((await unfinished(db)) === 0) break;
      await sleep(1000 + rnd() * 2000);
      const e = Math.floor(rnd() * children.length);
      const c = children[e] as Child;
      const pid = c.proc.pid ?? 0;
      if (
        freezes < (o.freezes as number) &&
        (kills % freezeEvery === freezeEvery - 1 || kills >= (o.kills as number))
      ) {
        freezes++;
        faults.push({ k: 'stop', pid, at: absNow() });
        c.proc.kill('SIGSTOP');
        await sleep(leaseMs + 1500);
        c.proc.kill('SIGCONT');
        faults.push({ k: 'cont', pid, at: absNow() });
        log(`froze engine ${e} (pid ${pid}) for ${(o.lease as number) + 1.5} s`);
      }
      if (kills < (o.kills as number)) {
        const k = children[Math.floor(rnd() * children.length)] as Child;
        const kpid = k.proc.pid ?? 0;
        const held = await db.query(
          `SELECT w.instance_id FROM workstation_leases w JOIN engines g ON g.id = w.engine_id
           WHERE g.pid = $1 AND g.stopped_at IS NULL`,
          [kpid],
        );
        const at = absNow();
        faults.push({ k: 'kill', pid: kpid, at });
        k.proc.kill('SIGKILL');
        await k.exited;
        kills++;
        for (const r of held.rows as { instance_id: string }[])
          adoptions.push({ pid: kpid, at, instanceId: r.instance_id });
        children[children.indexOf(k)] = spawnChild(k.dir, url, leaseMs, dispatches);
        if (kills % 10 === 0) log(`${kills} kills (${round((performance.now() - t0) / 1000, 0)} s)`);
      }
    }
    log('draining with the survivors');
    await drain(db, Math.max(120_000, (o.jobs as number) * renderMs));
    for (const c of children) await closeChild(c);

    // Adoption: kill → the first later dispatch on that workstation (by any engine).
    const adoptS: number[] = [];
    let unadopted = 0;
    for (const a of adoptions) {
      const next = dispatches
        .filter((d) => d.instanceId === a.instanceId && d.at > a.at)
        .sort((x, y) => x.at - y.at)[0];
      if (next) adoptS.push((next.at - a.at) / 1000);
      else unadopted++;
    }
    const states = Object.fromEntries(
      (await db.query('SELECT state, COUNT(*)::int AS n FROM jobs GROUP BY state')).rows.map(
        (r: { state: string; n: number }) => [r.state, r.n],
      ),
    ) as Record<string, number>;
    const lostRows = (
      await db.query(`SELECT j.id, j.state FROM jobs j WHERE
        (j.state = 'completed' AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.job_id = j.id))
        OR j.state NOT IN ('completed', 'failed_final', 'timeout_kill', 'cancelled')`)
    ).rows as { id: string; state: string }[];
    const openAttempts = (
      (await db.query("SELECT COUNT(*)::int AS n FROM attempts WHERE state <> 'ended'")).rows[0] as { n: number }
    ).n;
    const doubleCompleted = (
      (
        await db.query(
          "SELECT COUNT(*)::int AS n FROM (SELECT job_id FROM attempts WHERE outcome = 'completed' GROUP BY job_id HAVING COUNT(*) > 1) x",
        )
      ).rows[0] as { n: number }
    ).n;
    const assets = (await db.query('SELECT job_id, path, sha256 FROM assets')).rows as {
      job_id: string;
      path: string;
      sha256: string;
    }[];
    let badHash = 0;
    let missingFile = 0;
    for (const a of assets) {
      if (!existsSync(a.path)) {
        missingFile++;
        continue;
      }
      if (createHash('sha256').update(readFileSync(a.path)).digest('hex') !== a.sha256) badHash++;
    }
    const ok = executions(events.events).filter((x) => x.outcome === 'success');
    const count = new Map<string, number>();
    for (const x of ok) count.set(x.id, (count.get(x.id) ?? 0) + 1);
    const twiceIds = [...count].filter(([, n]) => n > 1).map(([id]) => id);
    const twiceDetail: unknown[] = [];
    for (const id of twiceIds.slice(0, 5)) {
      // The prompt id is the job id (attempt-runner.ts): its attempts, events and the sims' record of it.
      const at = (await db.query('SELECT * FROM attempts WHERE job_id = $1 ORDER BY n', [id])).rows;
      const ev = (await db.query('SELECT * FROM job_events WHERE job_id = $1 ORDER BY id', [id])).rows;
      const instances = (await db.query('SELECT id, name, url FROM instances')).rows;
      twiceDetail.push({
        promptId: id,
        runs: ok.filter((x) => x.id === id),
        simEvents: events.events.filter((e) => e.id === id),
        attempts: at,
        events: ev,
        instances,
      });
    }
    const held = maxHeld(events.events);
    return {
      states,
      lost: lostRows,
      openAttempts,
      doubleCompleted,
      assets: assets.length,
      badHash,
      missingFile,
      twiceIds,
      twiceDetail,
      faults,
      dispatchesOfTwice: dispatches.filter((d) => twiceIds.includes(d.jobId)),
      held,
      adopt: summary(adoptS),
      adoptions: adoptions.length,
      unadopted,
      kills,
      freezes,
      renderMs,
    };
  } finally {
    for (const c of children) await closeChild(c).catch(() => undefined);
    await db.end().catch(() => undefined);
    await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
    for (const d of dirs) d.cleanup();
  }
}

/** What one fault-free run measured: the rate, and where the CPU went per lifecycle. */
interface RateRun {
  rate: number;
  /** Per engine process: CPU ms per lifecycle, its main thread and the rest (the bridge worker, GC…). */
  engines: { mainMs: number; otherMs: number }[];
  /** The PostgreSQL server (every backend) and this process (the simulators), CPU ms per lifecycle. */
  postgresMs: number | null;
  benchMs: number;
  /** With the farm paused (nothing to run): each engine's CPU ms per second, and the server's. */
  idleMsPerS: number[];
  idlePostgresMsPerS: number | null;
  wallS: number;
}

/**
 * Lifecycles/s of `engines` engines draining `jobs` renders on 8 GPUs, no faults. The farm is seeded
 * paused and resumed once every engine is up, so the engines' start-up (Node, modules, the first
 * probes) is neither timed nor counted in their CPU; timed from the resume to the drain.
 */
async function rate(
  cluster: PostgresCluster,
  url: string,
  engines: number,
  jobs: number,
  renderMs: number,
  probeMs: number,
): Promise<RateRun> {
  const events = new SimEventLog();
  events.enabled = false;
  const sims = await startSims(GPUS, renderMs, Math.round(renderMs / 2), 7, events);
  const dirs: { path: string; cleanup(): void }[] = [];
  const children: Child[] = [];
  const dispatches: Dispatch[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const be = await openBenchEngine({ databaseUrl: url, instances: sims.map((s) => ({ url: s.url })) });
  try {
    const r = await importThroughContract(be.engine, shotListJson(jobs));
    if (r.ids.length !== jobs) throw new Error(`imported ${r.ids.length} of ${jobs}`);
    await be.engine.call('farm.pause', {});
    let ready = 0;
    for (let e = 0; e < engines; e++) {
      const d = makeTempDir(`shotfarm-rate-e${e}-`);
      dirs.push(d);
      const c = spawnChild(d.path, url, 5_000, dispatches, probeMs);
      c.proc.on('message', (m) => {
        if ((m as { t: string }).t === 'ready') ready++;
      });
      children.push(c);
    }
    const until = Date.now() + 60_000;
    while (ready < engines && Date.now() < until) await sleep(50);
    // The first probes and leases settle (a paused farm still probes its workstations).
    await sleep(1000);
    // What an engine costs with nothing to run (probes, lease renewals, re-reads), per second.
    const idle0 = children.map((c) => processCpu(c.proc.pid ?? 0));
    const idlePg0 = postgresCpuMs(cluster.dataDir);
    const idleT0 = absNow();
    await sleep(2000);
    const idleS = (absNow() - idleT0) / 1000;
    const idlePg = postgresCpuMs(cluster.dataDir);
    const cpu0 = children.map((c) => processCpu(c.proc.pid ?? 0));
    const pg0 = postgresCpuMs(cluster.dataDir);
    const own0 = process.cpuUsage();
    const t0 = absNow();
    await be.engine.call('farm.resume', {});
    await drain(db, 300_000);

    const wallS = (absNow() - t0) / 1000;
    const cpu1 = children.map((c) => processCpu(c.proc.pid ?? 0));
    const pg1 = postgresCpuMs(cluster.dataDir);
    const own = process.cpuUsage(own0);
    const per = (ms: number) => round(ms / jobs, 2);
    return {
      rate: jobs / wallS,
      engines: cpu1.map((c1, i) => {
        const c0 = cpu0[i];
        return c0 && c1
          ? { mainMs: per(c1.mainMs - c0.mainMs), otherMs: per(c1.otherMs - c0.otherMs) }
          : { mainMs: NaN, otherMs: NaN };
      }),
      postgresMs: pg0 !== null && pg1 !== null ? per(pg1 - pg0) : null,
      idleMsPerS: cpu0.map((c, i) => {
        const a = idle0[i];
        return a && c ? round((c.mainMs + c.otherMs - a.mainMs - a.otherMs) / idleS, 0) : NaN;
      }),
      idlePostgresMsPerS: idlePg0 !== null && idlePg !== null ? round((idlePg - idlePg0) / idleS, 0) : null,
      wallS: round(wallS, 2),
      benchMs: per((own.user + own.system) / 1000),
    };
  } finally {
    for (const c of children) await closeChild(c).catch(() => undefined);
    await be.close();
    await db.end().catch(() => undefined);
    await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
    for (const d of dirs) d.cleanup();
  }
}

/** The fault-free comparison at one render time: each engine count's run, and its figures. */
async function rates(
  args: BenchArgs,
  cluster: PostgresCluster,
  engines: number,
  jobs: number,
  renderMs: number,
  probeMs: number,
) {
  const runs: RateRun[] = [];
  for (let n = 1; n <= engines; n++) {
    args.log(`lifecycles/s with ${n} engine(s), renders ${renderMs}–${Math.round(renderMs * 1.5)} ms, no faults`);
    runs.push(await rate(cluster, cluster.createDatabase(`rate${renderMs}x${n}`), n, jobs, renderMs, probeMs));
  }
  return runs;
}

function rateFigures(runs: RateRun[], renderMs: number, lr: LoadReport, judge: boolean): Figure[] {
  const r = runs.map((x) => x.rate);
  const slowest = r.length > 1 ? Math.min(...r.slice(1)) : (r[0] ?? 0);
  const label = `renders ${renderMs}–${Math.round(renderMs * 1.5)} ms`;
  const ratio = slowest / (r[0] as number);
  return [
    info(
      `lifecycles/s with ${r.map((_, i) => i + 1).join(' / ')} engines (no faults; ${label})`,
      r.map((x) => round(x, 1)).join(' / '),
      r[r.length - 1],
    ),
    judge
      ? judged(`  with more engines ÷ with one (lowest; ${label})`, ratio, 0.9, '×', null, lr, 2, 'ge')
      : info(`  with more engines ÷ with one (lowest; ${label})`, `${round(ratio, 2)} ×`),
    info(
      '  CPU ms per lifecycle: each engine (main thread + other threads) · PostgreSQL · simulators',
      runs
        .map(
          (x, i) =>
            `${i + 1}: ${x.engines.map((e) => `${e.mainMs}+${e.otherMs}`).join(', ')} · ${x.postgresMs ?? 'n/a'} · ${x.benchMs}`,
        )
        .join(' | '),
    ),
    info(
      '  idle (farm paused) CPU ms/s: each engine · PostgreSQL',
      runs.map((x, i) => `${i + 1}: ${x.idleMsPerS.join(', ')} · ${x.idlePostgresMsPerS ?? 'n/a'}`).join(' | '),
    ),
  ];
}

export async function runChaosEngines(args: BenchArgs): Promise<BenchResult> {
  const o = numberFlags(args, {
    engines: 3,
    /** `--chaos 0` runs only the fault-free comparison. */
    chaos: 1,
    jobs: [400, 80],
    kills: [30, 6],
    freezes: [5, 2],
    lease: 4,
    seed: 1,
    'rate-jobs': [800, 200],
    /** Render time of the comparison (+ up to half again): 20 ms is CPU-bound on a small machine. */
    'rate-ms': 20,
    /** The GPU-bound comparison (`--gpu-jobs 0` skips it): the renders, not the engines, set the pace. */
    'gpu-ms': 500,
    'gpu-jobs': [240, 120],
    /**
     * The comparison's probe interval: the farm's default 2 s. Every engine probes every workstation
     * and sweeps the queue for blocked jobs once per interval, so the chaos part's 250 ms would charge
     * each added engine eight times the idle cost a real farm pays (the idle line shows it).
     */
    'probe-ms': 2000,
  });
  cpuProfDir = args.flags['cpu-prof'] ?? null;
  const load = watchLoad();
  const cluster = await startPostgresCluster({ durable: true });
  try {
    const r = o.chaos ? await chaosRun(args, cluster.createDatabase('chaos'), o) : null;
    // `--rate-jobs 0` skips the fault-free comparison.
    const cpuRuns =
      (o['rate-jobs'] as number) > 0
        ? await rates(
            args,
            cluster,
            o.engines as number,
            o['rate-jobs'] as number,
            o['rate-ms'] as number,
            o['probe-ms'] as number,
          )
        : [];
    const gpuRuns =
      (o['gpu-jobs'] as number) > 0
        ? await rates(
            args,
            cluster,
            o.engines as number,
            o['gpu-jobs'] as number,
            o['gpu-ms'] as number,
            o['probe-ms'] as number,
          )
        : [];
    const lr = load.stop(0);
    const figures: Figure[] = [
      ...(r ? chaosFigures(r, o, lr) : [info('chaos', 'skipped (--chaos 0)')]),
      ...(cpuRuns.length > 0
        ? rateFigures(cpuRuns, o['rate-ms'] as number, lr, false)
        : [info('lifecycles/s with 1 / 2 / 3 engines (no faults)', 'skipped (--rate-jobs 0)')]),
      // The farm must not get slower by adding engines where the GPUs set the pace; with renders of a
      // few ms on a 2-core machine each engine process's own CPU is in the way (the CPU line says how much).
      ...(gpuRuns.length > 0 ? rateFigures(gpuRuns, o['gpu-ms'] as number, lr, true) : []),
      info('load', loadLine(lr)),
    ];
    return {
      figures,
      details: { ...o, ...(r ? { ...r, lost: r.lost.slice(0, 50) } : {}), cpuRuns, gpuRuns },
    };
  } finally {
    cluster.close();
  }
}

function chaosFigures(r: Awaited<ReturnType<typeof chaosRun>>, o: Record<string, number>, lr: LoadReport): Figure[] {
  const maxH = Math.max(0, ...r.held);
  return [
    le('lost jobs', r.lost.length, 0, '', 0),
    le('prompts executed twice across the farm (simulator counts)', r.twiceIds.length, 0, '', 0),
    le('most of our prompts one server held at once', maxH, HELD_LIMIT, '', 0),
    info('  per server', r.held.join(' / ')),
    le('outputs whose file hash is wrong or missing', r.badHash + r.missingFile, 0, '', 0),
    info('  outputs checked', `${r.assets} (${r.badHash} wrong, ${r.missingFile} missing)`),
    le('attempts left open', r.openAttempts, 0, '', 0),
    le('jobs with more than one completed attempt', r.doubleCompleted, 0, '', 0),
    judged(
      "adoption of a killed engine's workstation p99 (kill → new dispatch)",
      r.adopt.p99,
      (o.lease as number) + 5,
      's',
      null,
      lr,
    ),
    info(
      '  adoption p50 / max; adoptions timed / not re-dispatched',
      `${r.adopt.p50} / ${r.adopt.max} s; ${r.adopt.n} / ${r.unadopted} (of ${r.adoptions})`,
    ),
    info('  kills · freezes · renders', `${r.kills} · ${r.freezes} · ~${r.renderMs} ms`),
    info('  final states', JSON.stringify(r.states)),
  ];
}
