/**
 * What the UI benchmark runs inside the page (Chromium), the types of what it reads back, and the
 * input it sends (wheel, scrollbar drag) through Chromium's input pipeline. The page code is kept as
 * strings: the root tsconfig is Node-only (no DOM types), as in the e2e tests.
 *
 * Times taken in the page are either page-relative (`performance.now()`, same origin as Resource
 * Timing) or absolute (`performance.timeOrigin + performance.now()`), the latter comparable with
 * `absNow()` in Node after `pageClockOffset` (both processes read the same machine's clock).
 *
 * "Painted" everywhere means: the first requestAnimationFrame after the DOM change, then the first
 * task after that frame (a MessageChannel message). The rAF callback runs before the frame's style,
 * layout and paint; the task after it runs once they are done, so it is the earliest moment a script
 * can see that the frame holding the change was produced.
 */
import type { Page } from 'playwright-core';
import { absNow, sleep } from './stats.js';

/** JobTable's ROW_HEIGHT (renderer/features/queue/JobTable.tsx). */
export const ROW_HEIGHT = 38;

/** The snippet that stamps "painted" for a DOM change already made: `afterPaint(fn)` calls fn(now). */
const AFTER_PAINT = `
  const afterPaint = (fn) => requestAnimationFrame(() => {
    const frameAt = performance.now();
    const ch = new MessageChannel();
    ch.port1.onmessage = () => { ch.port1.close(); fn(frameAt, performance.now()); };
    ch.port2.postMessage(null);
  });`;

export interface FirstPaintProbe {
  /** Resource Timing of every `jobs.list` call, page-relative ms. */
  jobsResponses: { startTime: number; responseEnd: number }[];
  /** When a loaded queue row (`.row[data-job-id]`, not a skeleton) first existed in the DOM. */
  rowsAt: number | null;
  /** The rAF callback after `rowsAt`, and the task after that frame (see "painted" above). */
  frameAt: number | null;
  paintedAt: number | null;
  /** Loaded rows in the DOM at `frameAt`. */
  rowsPainted: number;
}

/**
 * Installed with `page.addInitScript` before the app loads: records when `jobs.list` responses
 * arrived (responseEnd: the last byte of the body reached the renderer process) and when the first
 * loaded rows were painted.
 */
export const FIRST_PAINT_INIT = `(() => {
  ${AFTER_PAINT}
  const probe = { jobsResponses: [], rowsAt: null, frameAt: null, paintedAt: null, rowsPainted: 0 };
  window.__uiFirstPaint = probe;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name.includes('/api/call/jobs.list')) probe.jobsResponses.push({ startTime: e.startTime, responseEnd: e.responseEnd });
    }
  }).observe({ type: 'resource', buffered: true });
  const mo = new MutationObserver(() => {
    if (probe.rowsAt !== null || !document.querySelector('.row[data-job-id]')) return;
    probe.rowsAt = performance.now();
    mo.disconnect();
    afterPaint((frameAt, paintedAt) => {
      probe.frameAt = frameAt;
      probe.paintedAt = paintedAt;
      probe.rowsPainted = document.querySelectorAll('.row[data-job-id]').length;
    });
  });
  mo.observe(document, { childList: true, subtree: true });
})();`;

/** True once the first-paint probe has everything it needs (rows painted and their response timed). */
export const FIRST_PAINT_DONE = `(() => { const p = window.__uiFirstPaint; return !!p && p.paintedAt !== null && p.jobsResponses.length > 0; })()`;
export const FIRST_PAINT_READ = 'window.__uiFirstPaint';

export interface FrameRecord {
  /** rAF timestamp deltas (ms) while recording. */
  deltas: number[];
  /** Long tasks (> 50 ms) the page reported while recording, ms. */
  longTasks: number[];
  /**
   * Long animation frames (> 50 ms, the LoAF API): how much of each was script (event handlers,
   * React) and how much the rendering steps after it (style, layout, paint).
   */
  longFrames: { duration: number; scriptMs: number; renderMs: number }[];
  /** Frames in which the list showed a skeleton row (its page not fetched yet). */
  skeletonFrames: number;
  /** The first row in view when recording stopped. */
  row: number;
}

/**
 * Starts recording animation frames in the page (every rAF timestamp delta) while the benchmark
 * scrolls the queue with real input from outside the page.
 */
export function startFrameRecorder(rowHeight: number): string {
  return `void (() => {
    const body = document.querySelector('[data-testid="queue-body"]');
    const r = { deltas: [], longTasks: [], longFrames: [], skeletonFrames: 0, last: null, on: true, rowHeight: ${rowHeight}, pos: [] };
    const observe = (type, fn) => {
      try {
        const po = new PerformanceObserver((l) => l.getEntries().forEach(fn));
        po.observe({ type });
        r.pos.push(po);
      } catch { /* an entry type this Chromium does not have */ }
    };
    observe('longtask', (e) => r.longTasks.push(e.duration));
    observe('long-animation-frame', (e) => r.longFrames.push({
      duration: e.duration,
      scriptMs: e.scripts.reduce((a, s) => a + s.duration, 0),
      renderMs: e.renderStart > 0 ? e.startTime + e.duration - e.renderStart : 0,
    }));
    const tick = (ts) => {
      if (!r.on) return;
      if (r.last !== null) r.deltas.push(ts - r.last);
      r.last = ts;
      if (body.querySelector('.row-loading')) r.skeletonFrames++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    window.__uiFrames = r;
  })()`;
}

/** Stops the recorder after one more frame (so the last input's work is inside a recorded delta). */
export const STOP_FRAME_RECORDER = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const r = window.__uiFrames;
  r.on = false;
  r.pos.forEach((po) => po.disconnect());
  const body = document.querySelector('[data-testid="queue-body"]');
  resolve({ deltas: r.deltas, longTasks: r.longTasks, longFrames: r.longFrames, skeletonFrames: r.skeletonFrames, row: Math.round(body.scrollTop / r.rowHeight) });
})))`;

/** The queue body's scroll geometry, to find its scrollbar thumb. */
export const SCROLL_GEOMETRY = `(() => {
  const el = document.querySelector('[data-testid="queue-body"]');
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height, scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, scrollbarWidth: el.offsetWidth - el.clientWidth };
})()`;

export interface ScrollGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  scrollbarWidth: number;
}

/** One change of a visible row's progress as the DOM showed it (absolute page-clock ms). */
export interface ProgressObservation {
  jobId: string;
  state: string;
  /** The progress label's node (class type), e.g. "KSampler"; null when not running or "starting…". */
  node: string | null;
  /** From the row's steps label `value/max` (running rows with a determinate bar), else null. */
  value: number | null;
  max: number | null;
  /** The bar's inline width, e.g. "42.5%" (checks that the bar and the label agree). */
  width: string | null;
  mutatedAt: number;
  paintedAt: number | null;
}

/**
 * Watches the queue body for any DOM change; after each, reads every loaded row's state and
 * progress, and records a row whose reading changed, stamped when the change happened and when the
 * frame holding it was painted.
 */
export const PROGRESS_WATCH = `(() => {
  ${AFTER_PAINT}
  const body = document.querySelector('[data-testid="queue-body"]');
  const last = new Map();
  const obs = [];
  let waiting = [];
  const scan = () => {
    const t = performance.timeOrigin + performance.now();
    for (const row of body.querySelectorAll('.row[data-job-id]')) {
      const jobId = row.getAttribute('data-job-id');
      const state = row.getAttribute('data-state');
      let node = null, value = null, max = null, width = null;
      if (state === 'running') {
        const label = row.querySelector('[data-testid="progress"] .progress-label .truncate');
        node = label ? label.textContent : null;
        const steps = row.querySelector('[data-testid="steps"]');
        if (steps) [value, max] = steps.textContent.split('/').map(Number);
        const bar = row.querySelector('[data-testid="progress"] .bar > span');
        width = bar ? bar.style.width : null;
      }
      const key = state + ':' + node + ':' + value + '/' + max + ':' + width;
      if (last.get(jobId) === key) continue;
      last.set(jobId, key);
      const o = { jobId, state, node, value, max, width, mutatedAt: t, paintedAt: null };
      obs.push(o);
      waiting.push(o);
    }
    if (waiting.length) {
      const these = waiting;
      waiting = [];
      afterPaint(() => { const p = performance.timeOrigin + performance.now(); for (const o of these) o.paintedAt = p; });
    }
  };
  const mo = new MutationObserver(scan);
  mo.observe(body, { subtree: true, childList: true, attributes: true, characterData: true });
  scan();
  window.__uiProgress = { obs, stop: () => mo.disconnect() };
})()`;

export const PROGRESS_READ = '(() => { window.__uiProgress.stop(); return window.__uiProgress.obs; })()';

/**
 * The page clock minus Node's (ms), from the round trip with the smallest delay: add it to a Node
 * time to get the page's, subtract it from a page time to get Node's.
 */
export async function pageClockOffset(page: Page, samples = 25): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < samples; i++) {
    const a = absNow();
    const p = (await page.evaluate('performance.timeOrigin + performance.now()')) as number;
    const b = absNow();
    if (b - a < best.rttMs) best = { offsetMs: p - (a + b) / 2, rttMs: b - a };
  }
  return best;
}

/** An input event every INPUT_MS: about one per frame, like a wheel or a mouse drag. */
const INPUT_MS = 16;
/** Pixels per wheel event: at one event every 16 ms, 6,000 px (~160 rows) a second, a fast continuous spin. */
export const WHEEL_PX = 100;

export interface ScrollRun extends FrameRecord {
  name: string;
  fromRow: number;
  inputs: number;
}

/**
 * `seconds` worth of input: one `step` every INPUT_MS, on the clock and not after the previous one
 * was acknowledged, as a hand on a wheel or a mouse keeps going whatever the page does (Chromium
 * coalesces what queues up). Waits for all of them at the end.
 */
async function paced(seconds: number, step: (i: number, n: number) => Promise<void>): Promise<number> {
  const n = Math.max(1, Math.round((seconds * 1000) / INPUT_MS));
  const start = Date.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    sent.push(step(i, n));
    const next = start + (i + 1) * INPUT_MS;
    if (next > Date.now()) await sleep(next - Date.now());
  }
  await Promise.all(sent);
  return n;
}

/** Mouse-wheel events over the list (through Chromium's input pipeline, as a user's wheel). */
export async function wheelPass(page: Page, seconds: number, px = WHEEL_PX): Promise<ScrollRun> {
  const g = (await page.evaluate(SCROLL_GEOMETRY)) as ScrollGeometry;
  await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
  await page.evaluate(startFrameRecorder(ROW_HEIGHT));
  const inputs = await paced(seconds, () => page.mouse.wheel(0, px));
  const r = (await page.evaluate(STOP_FRAME_RECORDER)) as FrameRecord;
  return { ...r, name: 'wheel', fromRow: Math.round(g.scrollTop / ROW_HEIGHT), inputs };
}

/** Drags the list's scrollbar thumb from where it is to the bottom of the track (the rest of the list). */
export async function dragPass(page: Page, seconds: number): Promise<ScrollRun> {
  const g = (await page.evaluate(SCROLL_GEOMETRY)) as ScrollGeometry;
  if (g.scrollbarWidth <= 0) throw new Error('the queue list shows no scrollbar to drag (overlay scrollbars?)');
  const x = g.x + g.width - g.scrollbarWidth / 2;
  // Chromium's Linux scrollbar: an arrow button (as tall as the bar is wide) at each end of the
  // track; for 100k rows the thumb is at its minimum length (~20 px); its top follows scrollTop.
  const button = g.scrollbarWidth;
  const track = g.clientHeight - 2 * button;
  const thumb = Math.max(20, (track * g.clientHeight) / g.scrollHeight);
  const y0 = g.y + button + (g.scrollTop / (g.scrollHeight - g.clientHeight)) * (track - thumb) + thumb / 2;
  const y1 = g.y + button + track - thumb / 2;
  await page.mouse.move(x, y0);
  await page.mouse.down();
  await page.evaluate(startFrameRecorder(ROW_HEIGHT));
  const inputs = await paced(seconds, (i, n) => page.mouse.move(x, y0 + ((y1 - y0) * (i + 1)) / n));
  await page.mouse.up();
  const r = (await page.evaluate(STOP_FRAME_RECORDER)) as FrameRecord;
  const fromRow = Math.round(g.scrollTop / ROW_HEIGHT);
  if (r.row - fromRow < 100)
    throw new Error(`dragging the scrollbar thumb moved the list ${r.row - fromRow} rows only`);
  return { ...r, name: 'scrollbar drag', fromRow, inputs };
}
