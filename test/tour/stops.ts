/**
 * The screens of the tour, in order: each stop brings the page to one screen (a view, an open
 * drawer, a dialog) and `leave` puts it back, so the next stop starts from the plain view. A stop a
 * role cannot reach (no Import button, no Stop farm) says so in `when` and is skipped for it.
 */
import type { Page } from 'playwright-core';
import type { MethodClass, Role } from '../../shared/people.js';
import { RESOURCES } from '../helpers/engine.js';
import type { TourFarm } from './studio-farm.js';

export type Who = 'solo' | Role;

export interface Stop {
  name: string;
  when?: (may: (cls: MethodClass) => boolean, who: Who) => boolean;
  enter(page: Page, t: TourFarm): Promise<void>;
  leave?(page: Page): Promise<void>;
}

async function tab(page: Page, view: string): Promise<void> {
  await page.locator(`[data-tab="${view}"]`).click();
  await page.locator(`main[data-view="${view}"]`).waitFor();
}

async function scrollTo(page: Page, selector: string): Promise<void> {
  await page.locator(selector).waitFor();
  await page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView({ block: 'start' })`);
}

const closeWithEscape = (selector: string) => async (page: Page) => {
  await page.keyboard.press('Escape');
  await page.locator(selector).waitFor({ state: 'detached' });
};

const answerNo = async (page: Page) => {
  await page.locator('[data-testid="confirm-no"]').click();
  await page.locator('[data-testid="confirm-dialog"]').waitFor({ state: 'detached' });
};

export const STOPS: Stop[] = [
  {
    name: 'queue',
    async enter(page) {
      await tab(page, 'queue');
      await page.locator('.row[data-state="running"]').first().waitFor();
    },
  },
  {
    name: 'drawer-running',
    async enter(page, t) {
      await page.evaluate(`location.hash = '#/queue/job/${await t.rendering()}'`);
      await page.locator('[data-testid="job-drawer"] [data-testid="drawer-live"]').waitFor();
    },
    leave: closeWithEscape('[data-testid="job-drawer"]'),
  },
  {
    name: 'drawer-failed',
    async enter(page, t) {
      await page.evaluate(`location.hash = '#/queue/job/${t.ids.failed}'`);
      const toggle = page.locator('[data-testid="job-drawer"] [data-action="attempt-detail"]').first();
      await toggle.click();
      await page.locator('[data-testid="attempt-detail"]').waitFor();
    },
    leave: closeWithEscape('[data-testid="job-drawer"]'),
  },
  {
    name: 'bulk-cancel',
    when: (may) => may('jobActions'),
    async enter(page) {
      await tab(page, 'queue');
      await page.locator('.row[data-index="0"]').click();
      await page.locator('.row[data-index="5"]').click({ modifiers: ['Shift'] });
      await page.locator('.selcount', { hasText: '6 selected' }).waitFor();
      const cancel = page.locator('[data-testid="actionbar"] [data-action="cancel"]');
      // Others' jobs only (an artist): the disabled button and its reason are the screen.
      if (await cancel.isDisabled()) return;
      await cancel.click();
      await page.locator('[data-testid="confirm-dialog"]').waitFor();
    },
    async leave(page) {
      if ((await page.locator('[data-testid="confirm-dialog"]').count()) > 0) await answerNo(page);
      await page.keyboard.press('Escape');
    },
  },
  {
    name: 'timeline',
    async enter(page) {
      await tab(page, 'timeline');
      await page.locator('[data-testid="lane-busy"]').first().waitFor();
    },
  },
  {
    name: 'failures',
    async enter(page) {
      await tab(page, 'failures');
      await page.locator('[data-testid="failure-group"] .failure-head').first().click();
      await page.locator('.failure-job .failure-job-line').first().waitFor();
    },
  },
  {
    name: 'workstations',
    async enter(page) {
      await tab(page, 'workstations');
      await page.locator('[data-instance="runpod-rtx4090-studio-burst-endpoint-eu-west"]').waitFor();
    },
  },
  {
    name: 'workstations-runpod',
    async enter(page) {
      await scrollTo(page, '[data-instance="runpod-rtx4090-studio-burst-endpoint-eu-west"]');
    },
  },
  {
    name: 'ledger',
    async enter(page) {
      await tab(page, 'ledger');
      await page.waitForFunction(
        `[...document.querySelectorAll('.asset img')].filter((i) => i.complete && i.naturalWidth > 0).length >= 1`,
      );
    },
  },
  {
    name: 'export-panel',
    when: (may) => may('exports'),
    async enter(page) {
      await scrollTo(page, '[data-testid="export-panel"]');
    },
  },
  {
    name: 'settings',
    async enter(page) {
      await tab(page, 'settings');
      await page.locator('[data-setting="retry_attempts"]').waitFor();
    },
  },
  {
    name: 'templates',
    async enter(page) {
      await scrollTo(page, '[data-testid="templates-panel"]');
    },
  },
  {
    name: 'template-dialog',
    when: (may) => may('templates'),
    async enter(page) {
      await page.locator('[data-testid="settings-register-template"]').click();
      await page.locator('[data-testid="template-file"]').setInputFiles(`${RESOURCES}templates/keyframe-img2img.json`);
      await page.locator('[data-testid="template-verdict"]').waitFor();
    },
    leave: closeWithEscape('[data-testid="template-dialog"]'),
  },
  {
    name: 'people',
    when: (may, who) => may('people') && who !== 'solo',
    async enter(page) {
      await scrollTo(page, '[data-testid="people-panel"]');
    },
  },
  {
    name: 'import-dialog',
    when: (may) => may('import'),
    async enter(page) {
      await page.locator('[data-testid="import-file"]').setInputFiles(`${RESOURCES}samples/kitsu_shots.csv`);
      await page.locator('[data-mapping="project"]').fill('Moonfall_The_Long_Winter_Directors_Cut');
      await page.locator('[data-mapping="stage"]').selectOption('keyframe');
      await page.locator('[data-mapping="template"]').selectOption('txt2img');
      await page.locator('[data-testid="mapping-state"]', { hasText: 'preview up to date' }).waitFor();
    },
    leave: closeWithEscape('[data-testid="import-dialog"]'),
  },
  {
    name: 'stop-farm-confirm',
    when: (may) => may('farm'),
    async enter(page) {
      await tab(page, 'queue');
      await page.locator('[data-testid="farm-stop"]').click();
      await page.locator('[data-testid="confirm-dialog"]').waitFor();
    },
    leave: answerNo,
  },
];
