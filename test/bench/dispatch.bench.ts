/**
 * Dispatch with a deep queue: 16 simulated GPUs, 100,000 jobs queued, 20 ms prompts.
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
import { applySqlFixes } from './lib/what-if.js';

/** The scheduler's claim step (private): stubbed to time the choice alone. */
type Dispatcher = { claim: (...a: unknown[]) => Promise<string | null> | null };

/**
 * Times decision passes with the claim replaced by a no-op: pure choice over the queue. A pass
 * holds the slots it assigns until its claims' commit; the next pass waits for that (a tick).
 */
async function timeChoice(engine: Engine, passes: number): Promise<{ passMs: number[]; assigned: number[]; queryMs: number[] }> {
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
  const q = engine.db.prepare(SQL_CANDIDATES);
  const queryMs: number[] = [];
  for (let i = 0; i < passMs.length; i++) {
    const t0 = performance.now();
    q.all(64, 0); // the first page a pass with 16 free GPUs reads
    queryMs.push(performance.now() - t0);
  }
  return { passMs, assigned, queryMs };
}

export const dispatchBench: Benchmark = {
  name: 'dispatch',
  description: 'dispatch reaction, choice time, loop lag and RSS with 16 GPUs and 100k queued',
  async run(args) {
    const { log, flags } = args;
    const { queued, seconds: runS } = numberFlags(args, { queued: [100_000, 20_000], seconds: [20, 8] });
    const gpus = 16;
    log(`making a store with ${queued} queued jobs (through the contract, in chunks)`);
    const store = queuedStoreInChild(queued);
    const dir = dataDirWith(store);
    const farm = await startRemoteFarm(Array.from({ length: gpus }, (_, i) => ({ name: `g${i}`, duration: { fixedMs: 20 } })));
    const be = await openBenchEngine({ dataDir: dir.path, instances: farm.urls.map((url) => ({ url })) });
    const whatIf = flags['what-if'] ? flags['what-if'].split(',') : [];
    if (whatIf.length) log(`WHAT-IF fixes applied (not the engine as committed): ${whatIf.join(', ')}`);
    applySqlFixes(be.engine.db, whatIf);
    try {
      // Stub the claim before any instance is ready, so the choice is timed on an untouched queue.
      const over = flags['candidate-scan'] ? { candidateScan: Number(flags['candidate-scan']) } : {};
      if (flags['candidate-scan']) log(`WHAT-IF config: candidateScan ${flags['candidate-scan']} (default 512)`);
      // Prefetch off: a prompt already waiting on a server would hide the decision this measures.
      const s = be.engine.startScheduler({ ...over, prefetch: false });
      const target = s as unknown as Dispatcher;
      const real = target.claim;
      target.claim = () => null;
      await startAndWaitReady(be.engine, { prefetch: false });
      const choice = await timeChoice(be.engine, 500);
      target.claim = real;
      log(`choice: ${choice.assigned[0]} assignment(s) per pass; now dispatching for ${runS} s`);

      const probe = probeEngine(be.engine, { timePasses: true });
      await farm.events(true);
      s.kick();
      const warmupS = 2;
      await sleep(warmupS * 1000);
      const measureFrom = performance.timeOrigin + performance.now();
      probe.loop.reset();
      const cpu0 = { engine: process.cpuUsage(), sim: await farm.cpu(), at: performance.now() };
      await sleep(runS * 1000);
      const wall = (performance.now() - cpu0.at) * 1000;
      const eCpu = process.cpuUsage(cpu0.engine);
      const sCpu = await farm.cpu();
      const cpuShare = { engine: round(((eCpu.user + eCpu.system) / wall) * 100, 0), sim: round(((sCpu.user + sCpu.system - cpu0.sim.user - cpu0.sim.system) / wall) * 100, 0) };
      const events = await farm.events(true);
      probe.stop();
      const rssMax = Math.max(...probe.rss);

      const inWindow = events.filter((e) => e.t >= measureFrom);
      const gaps = reactionGaps(inWindow);
      const g = summary(gaps);
      // Phases of each gap: execution end → next claim committed → its POST arrived. The slot is
      // released before the finished job's outputs are collected, so its completion (published
      // after the download) is reported apart: it is not on the path to the next POST.
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
      const execs = inWindow.filter((e) => e.k === 'E').length;
      const loopP99 = probe.loop.percentile(99) / 1e6;
      const cp = summary(choice.passMs);
      const cq = summary(choice.queryMs);
      const realPasses = summary(probe.passMs);
      const figures: Figure[] = [
        le('reaction p50 (exec end → next POST)', g.p50, 5, 'ms'),
        le('reaction p99', g.p99, 25, 'ms'),
        info('  phases p50: exec end→next claim / claim→POST; exec end→completed (collect)', `${round(quantile(phases.decide, 0.5))} / ${round(quantile(phases.post, 0.5))} ms; ${round(quantile(phases.notice, 0.5))} ms`),
        info('  phases p99', `${round(quantile(phases.decide, 0.99))} / ${round(quantile(phases.post, 0.99))} ms; ${round(quantile(phases.notice, 0.99))} ms`),
        info('  GPU busy share (20 ms prompts) / CPU: engine, simulators', `${round((execs * 20) / (gpus * runS * 1000) * 100, 1)} % / ${cpuShare.engine} %, ${cpuShare.sim} % of one core`),
        le(`choose next job, ${queued / 1000}k queued: dispatchPass p99 (claim stubbed)`, cp.p99, 1, 'ms', 3),
        info('  dispatchPass p50 / candidate query (first page, 64 rows) p50 / p99', `${cp.p50} / ${cq.p50} / ${cq.p99} ms (${choice.assigned[0]} jobs placed per pass)`),
        info('  real passes in the busy run (claims included) p50 / p99', `${realPasses.p50} / ${realPasses.p99} ms (n=${realPasses.n})`),
        le('event-loop delay p99 during the busy run', loopP99, 20, 'ms'),
        le('engine RSS (max, busy, 100k queued)', mb(rssMax), 300, 'MB', 0),
      ];
      return {
        figures,
        details: {
          gpus, queued, runS, gaps: g, phases: { notice: summary(phases.notice), decide: summary(phases.decide), post: summary(phases.post) },
          choicePass: cp, candidateQuery: cq, realPasses, loopP99Ms: round(loopP99), loopMaxMs: round(probe.loop.max / 1e6),
          rssMaxMb: mb(rssMax), cpuShare, engineLog: be.logs.slice(-10), completedInRun: probe.completedCount(), executionsInWindow: execs,
        },
      };
    } finally {
      await be.close();
      await farm.close();
      dir.cleanup();
    }
  },
};
