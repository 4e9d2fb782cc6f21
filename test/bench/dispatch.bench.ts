/**
 * Dispatch with a deep queue: 16 simulated GPUs, 100,000 jobs queued, prefetch off (a prompt
 * already waiting on a server would hide the decision this measures).
 *
 * The judged run uses 100 ms prompts: 16 GPUs then ask for 160 prompts a second, about half what
 * the engine completes (`throughput`), so a reaction measures the decision and not a backlog. A
 * second run at 20 ms prompts (800 a second asked: more than the engine can complete, it runs flat
 * out) is printed beside it for what saturation does to the same figures.
 *
 * - reaction: on each instance, the simulator's execution end of one prompt → the next POST
 *   /prompt arriving at that instance (both timestamps taken in the simulator process), split
 *   into engine phases (completed published, claim committed) by hooks in the engine process;
 * - choice: `scheduler.dispatchPass()` timed with the claim stubbed out (16 free instances,
 *   100k queued), and the candidate query alone;
 * - during the busy run: event-loop delay (monitorEventLoopDelay), engine RSS, and the timed real
 *   passes (claims included).
 */
import type { Engine } from '../../electron/engine/engine.js';
import { SQL_CANDIDATES } from '../../electron/engine/store/job-store.js';
import { openBenchEngine, startAndWaitReady } from './lib/bench-engine.js';
import { probeEngine } from './lib/engine-probes.js';
import { dataDirWith, queuedStoreInChild } from './lib/queue-fixture.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { byInstance, reactionGaps } from './lib/sim-events.js';
import { mb, quantile, round, sleep, summary } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark, type Figure } from './lib/types.js';
import { baselineLine, judged, loadLine, measureBaselines, watchLoad, type LoadReport } from './lib/baselines.js';
import { applySqlFixes } from './lib/what-if.js';
import { startCpuProfile } from './lib/cpu-profile.js';

/** The scheduler's claim step (private): stubbed to time the choice alone. */
type Dispatcher = { claim: (...a: unknown[]) => Promise<string | null> | null };

/**
 * Times decision passes with the claim replaced by a no-op: pure choice over the queue. A pass
 * holds the slots it assigns until its claims' commit; the next pass waits for that (a tick).
 */
async function timeChoice(
  engine: Engine,
  passes: number,
): Promise<{ passMs: number[]; assigned: number[]; queryMs: number[] }> {
  const s = engine.scheduler as NonNullable<Engine['scheduler']>;
  const target = s as unknown as Dispatcher;
  const real = target.claim;
  let n = 0;
  target.claim = () => {
    n++;
    return null;
  };
  const passMs: number[] = [];
  const assigned: number[] = [];
  const until = performance.now() + 5_000;
  try {
    for (let i = 0; i < passes && performance.now() < until; i++) {
      n = 0;
      const t0 = performance.now();
      s.dispatchPass();
      passMs.push(performance.now() - t0);
      assigned.push(n);
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    target.claim = real;
  }
  const queryMs: number[] = [];
  for (let i = 0; i < passMs.length; i++) {
    const t0 = performance.now();
    engine.db.all(SQL_CANDIDATES, 64, 0); // the first page a pass with 16 free GPUs reads
    queryMs.push(performance.now() - t0);
  }
  return { passMs, assigned, queryMs };
}

interface BusyRun {
  promptMs: number;
  gaps: ReturnType<typeof summary>;
  phases: { notice: number[]; decide: number[]; post: number[] };
  busyShare: number;
  cpuShare: { engine: number; sim: number };
  loopP99: number;
  loopMax: number;
  realPasses: ReturnType<typeof summary>;
  rssMax: number;
  choice: Awaited<ReturnType<typeof timeChoice>> | null;
  completed: number;
  executions: number;
  logs: string[];
  /** The machine over the measured window (lib/baselines.ts). */
  load: LoadReport;
}

/** One engine on a copy of the queued store, 16 simulated GPUs of `promptMs` prompts, dispatching for `runS` seconds. */
async function busyRun(
  store: string,
  o: {
    promptMs: number;
    runS: number;
    gpus: number;
    timeChoice: boolean;
    flags: Record<string, string>;
    log: (m: string) => void;
  },
): Promise<BusyRun> {
  const { promptMs, runS, gpus, flags, log } = o;
  const dir = dataDirWith(store);
  const farm = await startRemoteFarm(
    Array.from({ length: gpus }, (_, i) => ({ name: `g${i}`, duration: { fixedMs: promptMs } })),
  );
  const be = await openBenchEngine({ dataDir: dir.path, instances: farm.urls.map((url) => ({ url })) });
  const whatIf = flags['what-if'] ? flags['what-if'].split(',') : [];
  if (whatIf.length) log(`WHAT-IF fixes applied (not the engine as committed): ${whatIf.join(', ')}`);
  applySqlFixes(be.engine.db, whatIf);
  try {
    // Stub the claim before any instance is ready, so the choice is timed on an untouched queue.
    const over = flags['candidate-scan'] ? { candidateScan: Number(flags['candidate-scan']) } : {};
    if (flags['candidate-scan']) log(`WHAT-IF config: candidateScan ${flags['candidate-scan']} (default 512)`);
    const s = be.engine.startScheduler({ ...over, prefetch: false });
    const target = s as unknown as Dispatcher;
    const real = target.claim;
    target.claim = () => null;
    await startAndWaitReady(be.engine, { prefetch: false });
    const choiceProfiler = await startCpuProfile(o.timeChoice ? flags['profile-choice'] : undefined);
    const choice = o.timeChoice ? await timeChoice(be.engine, 500) : null;
    const choiceProfiled = await choiceProfiler.stop();
    if (choiceProfiled) log(`CPU profile of the timed choice passes: ${choiceProfiled}`);
    target.claim = real;
    log(
      `${promptMs} ms prompts: ${choice ? `choice ${choice.assigned[0]} assignment(s) per pass; ` : ''}now dispatching for ${runS} s`,
    );

    const probe = probeEngine(be.engine, { timePasses: true });
    await farm.events(true);
    s.kick();
    const warmupS = 2;
    await sleep(warmupS * 1000);
    const measureFrom = performance.timeOrigin + performance.now();
    probe.loop.reset();
    const cpu0 = { engine: process.cpuUsage(), sim: await farm.cpu(), at: performance.now() };
    const watch = watchLoad();
    const profiler = await startCpuProfile(o.timeChoice ? flags.profile : undefined);
    await sleep(runS * 1000);
    const profiled = await profiler.stop();
    if (profiled) log(`CPU profile of the busy run: ${profiled}`);
    const wall = (performance.now() - cpu0.at) * 1000;
    const eCpu = process.cpuUsage(cpu0.engine);
    const sCpu = await farm.cpu();
    const load = watch.stop(
      (eCpu.user + eCpu.system + sCpu.user + sCpu.system - cpu0.sim.user - cpu0.sim.system) / 1000,
    );
    const cpuShare = {
      engine: round(((eCpu.user + eCpu.system) / wall) * 100, 0),
      sim: round(((sCpu.user + sCpu.system - cpu0.sim.user - cpu0.sim.system) / wall) * 100, 0),
    };
    const events = await farm.events(true);
    probe.stop();

    const inWindow = events.filter((e) => e.t >= measureFrom);
    // Phases of each gap: execution end → next claim committed → its POST arrived. The slot is
    // released at the success message, before the finished job's outputs are collected, so its
    // completion (published after the download) is reported apart: it is not on the path to the next POST.
    const phases = { notice: [] as number[], decide: [] as number[], post: [] as number[] };
    for (const list of byInstance(inWindow).values()) {
      let ended: { id: string; t: number } | null = null;
      for (const e of list) {
        if (e.k === 'E') ended = { id: e.id, t: e.t };
        else if (e.k === 'P' && ended) {
          const done = probe.completedAt.get(ended.id);
          const claimed = probe.dispatchedAt.get(e.id);
          if (done !== undefined) phases.notice.push(done - ended.t);
          if (claimed !== undefined) {
            phases.decide.push(claimed - ended.t);
            phases.post.push(e.t - claimed);
          }
          ended = null;
        }
      }
    }
    const executions = inWindow.filter((e) => e.k === 'E').length;
    return {
      promptMs,
      gaps: summary(reactionGaps(inWindow)),
      phases,
      busyShare: round(((executions * promptMs) / (gpus * runS * 1000)) * 100, 1),
      cpuShare,
      loopP99: probe.loop.percentile(99) / 1e6,
      loopMax: probe.loop.max / 1e6,
      realPasses: summary(probe.passMs),
      rssMax: Math.max(...probe.rss),
      choice,
      completed: probe.completedCount(),
      executions,
      logs: be.logs.slice(-10),
      load,
    };
  } finally {
    await be.close();
    await farm.close();
    dir.cleanup();
  }
}

function phaseLine(r: BusyRun, q: number): string {
  return `${round(quantile(r.phases.decide, q))} / ${round(quantile(r.phases.post, q))} ms; ${round(quantile(r.phases.notice, q))} ms`;
}

export const dispatchBench: Benchmark = {
  name: 'dispatch',
  description: 'dispatch reaction, choice time, loop lag and RSS with 16 GPUs and 100k queued',
  async run(args) {
    const { log, flags } = args;
    const {
      queued,
      seconds: runS,
      'prompt-ms': promptMs,
      'saturate-ms': saturateMs,
    } = numberFlags(args, { queued: [100_000, 20_000], seconds: [20, 8], 'prompt-ms': 100, 'saturate-ms': 20 });
    const gpus = 16;
    log('baselines in this run');
    const base = await measureBaselines();
    log(baselineLine(base));
    log(`making a store with ${queued} queued jobs (through the contract, in chunks)`);
    const store = queuedStoreInChild(queued);
    const r = await busyRun(store, { promptMs, runS, gpus, timeChoice: true, flags, log });
    const sat =
      saturateMs > 0 ? await busyRun(store, { promptMs: saturateMs, runS, gpus, timeChoice: false, flags, log }) : null;
    const choice = r.choice as NonNullable<BusyRun['choice']>;
    const cp = summary(choice.passMs);
    const cq = summary(choice.queryMs);
    const gap = { label: 'simulator pre-queued gap', ms: base.simGapMs };
    const figures: Figure[] = [
      info('baselines (same run)', baselineLine(base)),
      info('machine during the busy run', loadLine(r.load)),
      judged(`reaction p50 (exec end → next POST), ${promptMs} ms prompts`, r.gaps.p50, 5, 'ms', gap, r.load),
      judged('reaction p99', r.gaps.p99, 25, 'ms', gap, r.load),
      info('  phases p50: exec end→next claim / claim→POST; exec end→completed (collect)', phaseLine(r, 0.5)),
      info('  phases p99', phaseLine(r, 0.99)),
      info(
        `  GPU busy share / CPU: engine, simulators`,
        `${r.busyShare} % / ${r.cpuShare.engine} %, ${r.cpuShare.sim} % of one core`,
      ),
      judged(
        `choose next job, ${queued / 1000}k queued: dispatchPass p99 (claim stubbed)`,
        cp.p99,
        1,
        'ms',
        { label: 'CPU unit', ms: base.cpuUnitMs },
        r.load,
        3,
      ),
      info(
        '  dispatchPass p50 / candidate query (first page, 64 rows) p50 / p99',
        `${cp.p50} / ${cq.p50} / ${cq.p99} ms (${choice.assigned[0]} jobs placed per pass)`,
      ),
      info(
        '  real passes in the busy run (claims included) p50 / p99',
        `${r.realPasses.p50} / ${r.realPasses.p99} ms (n=${r.realPasses.n})`,
      ),
      judged(
        'event-loop delay p99 during the busy run',
        r.loopP99,
        20,
        'ms',
        { label: 'idle loop p99', ms: base.loopIdleP99Ms },
        r.load,
      ),
      le(`engine RSS (max, busy, ${queued / 1000}k queued)`, mb(r.rssMax), 300, 'MB', 0),
    ];
    if (sat) {
      figures.push(
        info(
          `  saturated (${sat.promptMs} ms prompts, ${Math.round((gpus * 1000) / sat.promptMs)}/s asked): reaction p50 / p99`,
          `${sat.gaps.p50} / ${sat.gaps.p99} ms (exec end→claim p99 ${round(quantile(sat.phases.decide, 0.99))} ms)`,
        ),
        info(
          '  saturated: GPU busy share / engine CPU / event-loop p99',
          `${sat.busyShare} % / ${sat.cpuShare.engine} % of one core / ${round(sat.loopP99)} ms`,
        ),
      );
    }
    const detailsOf = (b: BusyRun) => ({
      promptMs: b.promptMs,
      gaps: b.gaps,
      phases: { notice: summary(b.phases.notice), decide: summary(b.phases.decide), post: summary(b.phases.post) },
      realPasses: b.realPasses,
      loopP99Ms: round(b.loopP99),
      loopMaxMs: round(b.loopMax),
      rssMaxMb: mb(b.rssMax),
      cpuShare: b.cpuShare,
      busyShare: b.busyShare,
      engineLog: b.logs,
      completedInRun: b.completed,
      executionsInWindow: b.executions,
    });
    return {
      figures,
      details: {
        gpus,
        queued,
        runS,
        baselines: base,
        choicePass: cp,
        candidateQuery: cq,
        judged: detailsOf(r),
        saturated: sat ? detailsOf(sat) : null,
      },
    };
  },
};
