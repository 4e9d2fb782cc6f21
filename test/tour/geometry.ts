/**
 * What a screenshot would show wrong, measured: the page scrolling sideways, top-bar items
 * overlapping, cut or outside the window, counts without words, banners over the bar, and controls
 * offered to a role whose `session.whoami` says it may not use them (the page marks such controls
 * with `data-needs="<method class>"`). Shared by the top-bar test, the tour test and `npm run screenshots`.
 */
import type { Page } from 'playwright-core';
import type { SessionView } from '../../shared/people.js';

/** Overlaps, cuts and strays in the top bar, and counts with neither a word nor a hover label. */
export async function topBarProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const out = [];
    const w = window.innerWidth;
    const name = (el) => el.getAttribute('data-testid') || el.getAttribute('data-tab') || el.getAttribute('data-summary-state') || el.className;
    if (document.documentElement.scrollWidth > w) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + w);
    const bar = document.querySelector('.topbar');
    if (bar.scrollWidth > bar.clientWidth) out.push('top bar overflows: ' + bar.scrollWidth + ' > ' + bar.clientWidth);
    const barBox = bar.getBoundingClientRect();
    const items = [...document.querySelectorAll('.topbar .brand, .topbar .tab, .topbar-right > *')].filter((el) => el.getBoundingClientRect().width > 0);
    const boxes = items.map((el) => [name(el), el.getBoundingClientRect()]);
    for (const [n, r] of boxes) {
      if (r.left < 0 || r.right > w + 0.5) out.push(n + ' outside the window: ' + Math.round(r.left) + '–' + Math.round(r.right));
      if (r.top < barBox.top - 0.5 || r.bottom > barBox.bottom + 0.5) out.push(n + ' sticks out of the bar vertically');
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left), y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 0.5 && y > 0.5) out.push(a + ' overlaps ' + b + ' by ' + Math.round(x) + ' px');
    }
    for (const el of document.querySelectorAll('.topbar *')) {
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow === 'hidden' && !el.classList.contains('signed-in-name')) out.push(name(el) + ' cuts its content: ' + el.scrollWidth + ' > ' + el.clientWidth);
    }
    const btn = document.querySelector('[data-testid="counts-summary"]').getBoundingClientRect();
    for (const s of document.querySelectorAll('.summary-btn .sum')) {
      const r = s.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < btn.left - 0.5 || r.right > btn.right + 0.5) out.push('the ' + name(s) + ' count is cut by the summary');
      const word = s.querySelector('.sum-word');
      const worded = word && word.getBoundingClientRect().width > 0;
      if (!worded && !s.getAttribute('title')) out.push('the ' + name(s) + ' count is a bare dot and number');
    }
    for (const b of document.querySelectorAll('.banner, .farm-banner')) {
      const r = b.getBoundingClientRect();
      if (r.top < barBox.bottom - 0.5 && r.bottom > barBox.top) out.push('a banner overlaps the top bar');
      if (r.right > w + 0.5) out.push('a banner is wider than the window');
    }
    return out;
  })()`)) as string[];
}

/** The page (or an open dialog) wider than the window. */
export async function sidewaysProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const out = [];
    const d = document.documentElement;
    if (d.scrollWidth > d.clientWidth) out.push('page scrolls sideways: ' + d.scrollWidth + ' > ' + d.clientWidth);
    for (const el of document.querySelectorAll('.main, .view, .modal, .modal-body, .drawer, [data-testid="queue-body"]')) {
      const cs = getComputedStyle(el);
      if (el.scrollWidth > el.clientWidth + 1 && cs.overflowX !== 'hidden' && cs.overflowX !== 'clip')
        out.push((el.getAttribute('data-testid') || el.className) + ' scrolls sideways: ' + el.scrollWidth + ' > ' + el.clientWidth);
    }
    return out;
  })()`)) as string[];
}

/** Controls the role may never use that are shown and enabled (the server would refuse them at the end). */
export async function roleProblems(page: Page, session: SessionView | null): Promise<string[]> {
  if (session === null || session.solo) return [];
  const denied = Object.entries(session.may)
    .filter(([, v]) => v === 'no')
    .map(([k]) => k);
  return (await page.evaluate(`(() => {
    const denied = new Set(${JSON.stringify(denied)});
    const out = [];
    for (const el of document.querySelectorAll('[data-needs]')) {
      const cls = el.getAttribute('data-needs');
      if (!denied.has(cls)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (el.disabled) continue;
      out.push((el.getAttribute('data-testid') || el.getAttribute('data-action') || el.className) + ' needs ' + cls + ', which ${session.role}s may not use');
    }
    return out;
  })()`)) as string[];
}

/**
 * The queue table's header out of line with its rows (a header over the wrong column, by a scrollbar's
 * width or more), a header word cut, and the group tree lying over the rows' shot names.
 */
export async function queueTableProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const out = [];
    const head = document.querySelector('.queue-main .row-head');
    const row = document.querySelector('.queue-main .row[data-job-id]');
    if (!head || !row) return out;
    const heads = [...head.children], cells = [...row.children];
    heads.forEach((h, i) => {
      const word = h.textContent.trim();
      if (h.scrollWidth > h.clientWidth + 1 || h.scrollHeight > h.clientHeight + 1) out.push('the ' + word + ' header is cut');
      const c = cells[i];
      if (!c) return;
      const off = Math.round(h.getBoundingClientRect().left - c.getBoundingClientRect().left);
      const wider = Math.round(h.getBoundingClientRect().width - c.getBoundingClientRect().width);
      if (Math.abs(off) > 1 || Math.abs(wider) > 1) out.push('the ' + word + ' header stands ' + off + ' px off its column (' + wider + ' px wider)');
    });
    const tree = document.querySelector('[data-testid="group-tree"]');
    const shot = row.querySelector('.cell-shot');
    if (tree && shot) {
      const t = tree.getBoundingClientRect(), r = shot.getBoundingClientRect();
      if (t.right > r.left + 0.5 && t.left < r.right && t.bottom > r.top && t.top < r.bottom) out.push("the group tree lies over the rows' shot names");
    }
    return out;
  })()`)) as string[];
}

/** Everything measured on one screen. */
export async function screenProblems(page: Page, session: SessionView | null): Promise<string[]> {
  const signedOut = (await page.locator('[data-testid="signin-page"]').count()) > 0;
  return [
    ...(await sidewaysProblems(page)),
    ...(signedOut ? [] : await topBarProblems(page)),
    ...(await roleProblems(page, session)),
    ...(await queueTableProblems(page)),
  ];
}
