/**
 * The Studio's queue view in Chromium with 100,000 jobs queued: the built renderer served by the
 * headless server (electron/server) over a real engine, simulator workstations in a child process.
 *
 *   1. First paint of the queue ≤ 200 ms after its data arrives. Measured in the page, for each of
 *      `--loads` fresh browser contexts opening `/#/queue`:
 *        data arrives = responseEnd (Resource Timing) of the first `jobs.list` response: the last
 *                       byte of the first page of rows reached the renderer;
 *        painted      = the first requestAnimationFrame after a loaded row (`.row[data-job-id]`)
 *                       exists in the DOM, then the first task after that frame, i.e. once the
 *                       frame holding the rows had its style, layout and paint done.
 *      first paint = painted − data arrives; verdict on the median of the loads (max reported).
 *   2. No frame over 32 ms while scrolling. The list is scrolled with real input through Chromium's
 *      input pipeline (CDP), one event every 16 ms whatever the page does: mouse-wheel events of
 *      100 px (6,000 px/s, ~160 rows/s, a fast continuous spin), then a drag of the scrollbar thumb
 *      to the bottom (the rest of the 100k rows, a new page of rows nearly every frame). A frame =
 *      the delta between consecutive rAF timestamps in the page; max, p99 and frames over 32 ms are
 *      reported, verdict on the max over both passes. Long animation frames (LoAF) are split into
 *      script and rendering time, and Linux's CPU pressure is reported: other work on the machine
 *      shows up as long frames too. (Setting scrollTop from a rAF loop was not used: each
 *      programmatic scroll also fires a `scrollend`, which a real wheel or drag fires once, at its
 *      end, and TanStack Virtual re-renders on it.)
 *   3. A progress event visible in its bar ≤ 250 ms p95. With the view back at the top, the
 *      scheduler starts on two simulator workstations whose sampler takes 40 steps of ~100 ms, so
 *      the engine publishes `job.progress` ~20 times a second. Each event is stamped in Node when
 *      the engine publishes it (an engine.events subscriber); the page watches the rows with a
 *      MutationObserver and stamps each change of a row's bar/label when painted (as above). An
 *      event with a value (max > 0) is visible once its row paints that value or anything later
 *      (a later step, the next node, completion): the server and the renderer each coalesce
 *      progress per job in 100 ms batches, so a superseded value is never drawn and its successor
 *      is what the operator sees. Latency = that paint − publish; p50/p95/max over ≥ 50 events.
 *      Clocks: the page's `timeOrigin + now()` against Node's, the offset measured by round trips.
 *
 * Flags: --jobs N (100000; --quick 10000), --loads N (5; 3), --scroll-seconds S (5; 3),
 * --wheel-px N (100), --progress-events N (200; 60). Screenshots go to bench-results/ (ui-queue-*.png).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import type { BuiltRenderer } from '../helpers/browser.js';
import {
  importThroughContract,
  openBenchEngine,
  shotListJson,
  startAndWaitReady,
  type BenchEngine,
} from './lib/bench-engine.js';
import { startRemoteFarm, type RemoteFarm } from './lib/remote-farm.js';
import { absNow, median, quantile, round, sleep, summary, until } from './lib/stats.js';
import { info, le, numberFlags, type Benchmark, type Figure } from './lib/types.js';
import {
  FIRST_PAINT_DONE,
  FIRST_PAINT_INIT,
  FIRST_PAINT_READ,
  PROGRESS_READ,
  PROGRESS_WATCH,
  WHEEL_PX,
  dragPass,
  pageClockOffset,
  wheelPass,
  type FirstPaintProbe,
  type ProgressObservation,
} from './lib/ui-page.js';

const RESULTS = new URL('../../bench-results/', import.meta.url).pathname;
const SAMPLER_STEPS = 40;
const SAMPLER_MS = 4_000;

/** A `job.progress` event as the engine published it (`at`: absNow() in the publishing call). */
export interface EngineProgress {
  jobId: string;
  /** What the row's label shows for it: the node's class type (or id). */
  node: string;
  value: number;
  max: number;
  at: number;
}

export const uiBench: Benchmark = {
  name: 'ui',
  description: 'queue view with 100k jobs in Chromium: first paint, scroll frames, progress latency',
  async run(args) {
    const { log } = args;
    const {
      jobs,
      loads,
      'scroll-seconds': scrollSeconds,
      'progress-events': wantEvents,
      'wheel-px': wheelPx,
    } = numberFlags(args, {
      jobs: [100_000, 10_000],
      loads: [5, 3],
      'scroll-seconds': [5, 3],
      'progress-events': [200, 60],
      'wheel-px': WHEEL_PX,
    });

    let farm: RemoteFarm | undefined;
    let be: BenchEngine | undefined;
    let built: BuiltRenderer | undefined;
    let server: RunningServer | undefined;
    let browser: Browser | undefined;
    const contexts: BrowserContext[] = [];
    /** Each opened page's error list (filled while the page lives). */
    const pageErrorLists: string[][] = [];
    try {
      // Loaded here, not at the top: vite and playwright add ~250 MB to the bench process, which
      // every other benchmark's RSS figure would otherwise count.
      const { APP_VIEWPORT, buildRenderer, launchBrowser, openAppPage } = await import('../helpers/browser.js');
      log('building the renderer (vite)…');
      built = await buildRenderer();
      farm = await startRemoteFarm(
        [0, 1].map((i) => ({ name: `gpu${i}`, duration: { fixedMs: 30, perClassMs: { KSampler: SAMPLER_MS } } })),
      );
      // Instances registered, scheduler not started: all jobs stay queued until phase 3.
      be = await openBenchEngine({ instances: farm.urls.map((url, i) => ({ url, name: `gpu${i}` })) });
      const engine = be.engine;
      const t0 = performance.now();
      const imported = await importThroughContract(
        engine,
        shotListJson(jobs, { spec: (i) => ({ parameters: { prompt: `shot ${i}`, steps: SAMPLER_STEPS } }) }),
      );
      if (imported.ids.length !== jobs)
        throw new Error(`imported ${imported.ids.length} of ${jobs} jobs (${imported.errors} errors)`);
      log(`${jobs} jobs queued in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      server = await startServer({ engine, staticDir: built.dir });
      browser = await launchBrowser({ showScrollbars: true });

      const open = async (): Promise<Page> => {
        const { context, page, errors } = await openAppPage(browser!, `${server!.url}/#/queue`, {
          timeoutMs: 30_000,
          initScript: FIRST_PAINT_INIT,
        });
        contexts.push(context);
        pageErrorLists.push(errors);
        await page.waitForFunction(FIRST_PAINT_DONE);
        return page;
      };

      // 1. First paint, in fresh contexts (no HTTP cache, no warm page); the last page is kept.
      const paints: number[] = [];
      const sinceNavigation: number[] = [];
      const responseMs: number[] = [];
      let page: Page | undefined;
      for (let i = 0; i < loads; i++) {
        if (page) await page.context().close();
        page = await open();
        const p = (await page.evaluate(FIRST_PAINT_READ)) as FirstPaintProbe;
        const first = p.jobsResponses.reduce((a, b) => (b.responseEnd < a.responseEnd ? b : a));
        paints.push((p.paintedAt as number) - first.responseEnd);
        sinceNavigation.push(p.paintedAt as number);
        responseMs.push(first.responseEnd - first.startTime);
        log(
          `load ${i + 1}: first rows painted ${round(paints[i] as number)} ms after the jobs page arrived (${p.rowsPainted} rows; rAF at +${round((p.frameAt as number) - first.responseEnd)} ms; ${round(p.paintedAt as number)} ms after navigation)`,
        );
      }
      if (!page) throw new Error('--loads must be at least 1');
      const total = Number(await page.locator('[role="grid"]').getAttribute('aria-rowcount'));
      if (total !== jobs) throw new Error(`the queue shows ${total} jobs, expected ${jobs}`);

      // 2. Scrolling with real input: mouse-wheel events, then a drag of the scrollbar thumb.
      const pressureBefore = cpuPressure();
      const wheel = await wheelPass(page, scrollSeconds, wheelPx);
      const drag = await dragPass(page, scrollSeconds);
      const pressureAfter = cpuPressure();
      for (const s of [wheel, drag]) {
        const d = summary(s.deltas);
        const lf = s.longFrames;
        log(
          `scroll ${s.name}: rows ${s.fromRow} → ${s.row} in ${s.deltas.length} frames (${s.inputs} input events); frame p50 ${d.p50} / p99 ${d.p99} / max ${d.max} ms; ${s.deltas.filter((x) => x > 32).length} over 32 ms; frames with skeleton rows ${s.skeletonFrames}; long animation frames ${lf.length} (median script ${round(median(lf.map((f) => f.scriptMs)))} ms, rendering ${round(median(lf.map((f) => f.renderMs)))} ms)`,
        );
      }
      if (pressureBefore !== null)
        log(
          `CPU pressure (PSI "some" avg10, share of time runnable tasks waited for a CPU): ${pressureBefore}% before scrolling, ${pressureAfter}% after`,
        );
      await page.locator('.row[data-job-id]').first().waitFor();
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, `ui-queue-${jobs / 1000}k-scrolled.png`) });

      // 3. Progress: back to the top, start the scheduler, and time events from publish to paint.
      await page.evaluate(`document.querySelector('[data-testid="queue-body"]').scrollTop = 0`);
      await page.waitForFunction(`document.querySelector('.row[data-index="0"][data-job-id]') !== null`);
      const published: EngineProgress[] = [];
      const off = engine.events.on('job.progress', ({ jobId, progress }) => {
        published.push({
          jobId,
          node: progress.nodeType ?? progress.node ?? 'node',
          value: progress.value,
          max: progress.max,
          at: absNow(),
        });
      });
      let observed: ProgressObservation[] = [];
      let clock = { offsetMs: 0, rttMs: 0 };
      try {
        await page.evaluate(PROGRESS_WATCH);
        await startAndWaitReady(engine);
        const determinate = () => published.filter((e) => e.max > 0).length;
        const enough = await until(() => determinate() >= wantEvents, 90_000, 50);
        if (!enough) throw new Error(`only ${determinate()} progress events with a value in 90 s`);
        await page.screenshot({ path: join(RESULTS, `ui-queue-${jobs / 1000}k.png`) });
      } finally {
        off();
      }
      // Let the last events reach the page, then read it and the clock offset.
      await sleep(1_000);
      observed = (await page.evaluate(PROGRESS_READ)) as ProgressObservation[];
      clock = await pageClockOffset(page);
      const lat = progressLatencies(published, observed, clock.offsetMs);
      const ls = { ...summary(lat.latencies), p95: round(quantile(lat.latencies, 0.95)) };
      log(
        `progress: ${published.length} events (${lat.latencies.length + lat.unseen} with a value), ${lat.latencies.length} seen in a bar, ${lat.unseen} never shown; clock offset ${round(clock.offsetMs)} ms (rtt ${round(clock.rttMs)} ms); bar/label mismatches ${lat.widthMismatches}`,
      );
      if (lat.unseen) log(`never shown (sample): ${JSON.stringify(lat.unseenSample)}`);
      log(
        `slowest: ${lat.worst.map((w) => `${w.jobId.slice(0, 8)} ${w.value}/${w.max} ${w.ms} ms (shown as ${w.shownAs})`).join('; ')}`,
      );

      const pageErrors = pageErrorLists.flat();
      const frames = [...wheel.deltas, ...drag.deltas];
      const fs = summary(frames);
      const over = frames.filter((x) => x > 32).length;
      const figures: Figure[] = [
        le(
          `first paint of the queue after its data arrives (median of ${loads} loads, ${jobs / 1000}k jobs)`,
          median(paints),
          200,
          'ms',
          1,
        ),
        info(
          '  worst load / response time of jobs.list / painted after navigation',
          `${round(Math.max(...paints))} ms / ${round(median(responseMs))} ms / ${round(median(sinceNavigation))} ms`,
        ),
        le('longest frame while scrolling (wheel + scrollbar drag)', fs.max, 32, 'ms', 1),
        info('  frame p99 / p50 / frames over 32 ms', `${fs.p99} / ${fs.p50} ms / ${over} of ${frames.length}`, over),
        ...(pressureAfter !== null
          ? [
              info(
                '  CPU pressure while scrolling (PSI some avg10: runnable tasks waited for a CPU)',
                `${pressureBefore}% → ${pressureAfter}%`,
                pressureAfter,
              ),
            ]
          : []),
        info(
          '  frames showing skeleton rows (rows whose page had not arrived): wheel; drag',
          `${wheel.skeletonFrames} of ${wheel.deltas.length}; ${drag.skeletonFrames} of ${drag.deltas.length}`,
          wheel.skeletonFrames,
        ),
        info(
          '  rows scrolled (wheel; scrollbar drag)',
          `${wheel.fromRow}→${wheel.row} in ${wheel.deltas.length} frames; ${drag.fromRow}→${drag.row} in ${drag.deltas.length} frames`,
        ),
        le(`progress event visible in its bar p95 (${lat.latencies.length} events)`, ls.p95, 250, 'ms', 1),
        info('  p50 / max / min', `${ls.p50} / ${ls.max} / ${round(Math.min(...lat.latencies))} ms`),
        le('page errors during the run', pageErrors.length, 0, '', 0),
      ];
      if (lat.latencies.length < 50)
        figures.push({
          figure: '  progress events measured',
          target: '≥ 50',
          measured: String(lat.latencies.length),
          verdict: 'MISS',
        });
      return {
        figures,
        details: {
          jobs,
          loads,
          viewport: APP_VIEWPORT,
          firstPaintMs: paints.map((x) => round(x)),
          jobsListResponseMs: responseMs.map((x) => round(x)),
          paintedAfterNavigationMs: sinceNavigation.map((x) => round(x)),
          scroll: [wheel, drag].map((s) => ({
            name: s.name,
            fromRow: s.fromRow,
            toRow: s.row,
            inputs: s.inputs,
            frames: s.deltas.length,
            skeletonFrames: s.skeletonFrames,
            frameMs: summary(s.deltas),
            over32: s.deltas.filter((x) => x > 32).length,
            longTasksMs: s.longTasks.map((x) => round(x)),
            longFrames: s.longFrames.map((f) => ({
              duration: round(f.duration),
              scriptMs: round(f.scriptMs),
              renderMs: round(f.renderMs),
            })),
          })),
          cpuPressure: { beforeScroll: pressureBefore, afterScroll: pressureAfter },
          progress: {
            published: published.length,
            determinate: lat.latencies.length + lat.unseen,
            measured: lat.latencies.length,
            unseen: lat.unseen,
            latencyMs: ls,
            clock,
            widthMismatches: lat.widthMismatches,
            worst: lat.worst,
            unseenSample: lat.unseenSample,
          },
          pageErrors,
        },
      };
    } finally {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser?.close().catch(() => undefined);
      await server?.close().catch(() => undefined);
      await be?.close();
      await farm?.close();
      built?.cleanup();
    }
  },
};

/**
 * Linux pressure stall information: the share of the last 10 s in which some runnable task waited
 * for a CPU (null where /proc/pressure is missing). High means other work is taking the cores.
 */
function cpuPressure(): number | null {
  try {
    const m = /some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Pairs each published event that has a value (max > 0) with the first painted DOM state of its row
 * that shows it or anything later: each painted state is read as the latest event published before
 * it with the same label (node, and value/max when determinate), or as the end for a completed row;
 * an event is visible once a state at or after it is painted. So a value the batching replaced
 * counts as visible when its successor is, be that the next step or the next node. Page times are
 * moved to Node's clock with `offsetMs`.
 */
export function progressLatencies(
  published: readonly EngineProgress[],
  observed: readonly ProgressObservation[],
  offsetMs: number,
): {
  latencies: number[];
  unseen: number;
  widthMismatches: number;
  /** The slowest events, and some never shown, for a look at why. */
  worst: { jobId: string; value: number; max: number; ms: number; shownAs: string }[];
  unseenSample: { jobId: string; node: string; value: number; max: number; index: number; of: number }[];
} {
  const label = (node: string | null, value: number | null, max: number | null) =>
    `${node}|${max ? `${value}/${max}` : '-'}`;
  const eventsOf = new Map<string, EngineProgress[]>();
  for (const e of published) eventsOf.set(e.jobId, [...(eventsOf.get(e.jobId) ?? []), e]);
  // For each job: (index of the latest event a painted state shows, when it was painted), in order.
  const shownOf = new Map<string, { index: number; at: number; as: string }[]>();
  let widthMismatches = 0;
  for (const o of observed) {
    if (o.paintedAt === null) continue;
    if (
      o.value !== null &&
      o.max &&
      o.width !== null &&
      Math.abs(parseFloat(o.width) - Math.min(100, (o.value / o.max) * 100)) > 0.01
    )
      widthMismatches++;
    const events = eventsOf.get(o.jobId) ?? [];
    const mutated = o.mutatedAt - offsetMs;
    let index = -1;
    if (o.state === 'completed') index = Number.POSITIVE_INFINITY;
    else if (o.state === 'running') {
      const want = label(o.node, o.value, o.max);
      // 5 ms of slack for the clock offset's error (a state cannot show an event published after it).
      for (let i = events.length - 1; i >= 0; i--) {
        const e = events[i] as EngineProgress;
        if (e.at <= mutated + 5 && label(e.node, e.value, e.max) === want) {
          index = i;
          break;
        }
      }
    }
    if (index < 0) continue;
    const list = shownOf.get(o.jobId) ?? [];
    list.push({
      index,
      at: o.paintedAt - offsetMs,
      as: o.state === 'completed' ? 'completed' : label(o.node, o.value, o.max),
    });
    shownOf.set(o.jobId, list);
  }
  const latencies: number[] = [];
  const all: { jobId: string; value: number; max: number; ms: number; shownAs: string }[] = [];
  let unseen = 0;
  const unseenSample: { jobId: string; node: string; value: number; max: number; index: number; of: number }[] = [];
  for (const [jobId, events] of eventsOf) {
    events.forEach((e, i) => {
      if (e.max <= 0) return;
      const shown = shownOf.get(jobId)?.find((s) => s.index >= i);
      if (!shown) {
        unseen++;
        if (unseenSample.length < 5)
          unseenSample.push({ jobId, node: e.node, value: e.value, max: e.max, index: i, of: events.length });
        return;
      }
      latencies.push(shown.at - e.at);
      all.push({ jobId, value: e.value, max: e.max, ms: Math.round(shown.at - e.at), shownAs: shown.as });
    });
  }
  const worst = all.sort((a, b) => b.ms - a.ms).slice(0, 5);
  return { latencies, unseen, widthMismatches, worst, unseenSample };
}
