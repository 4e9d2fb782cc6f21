/** People signed in to a real serve, each in their own browser context: the people e2e tests' set-up. */
import type { TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Engine } from '../../../electron/engine/engine.js';
import { startServer, type RunningServer } from '../../../electron/server/server.js';
import type { Role } from '../../../shared/people.js';
import { openAppPage, type AppPage } from '../../helpers/browser.js';
import { startFarm, type Farm } from '../../helpers/farm.js';
import { addPerson } from '../../helpers/people.js';
import type { StudioSuite } from './studio.js';

/** Adds a person and opens the Studio as them on `view`, once the top bar names them. */
export type OpenAs = (name: string, role: Role, view: string) => Promise<AppPage & { token: string }>;

/**
 * `open(name, role, view)` for this farm's serve at `serverUrl`: the person is added through the
 * contract (as the CLI does), their page opened with the `?token=` link in a fresh context (closed
 * when the test ends), and waited on until it is signed in as them.
 */
export function peoplePages(
  ctx: Pick<TestContext, 'after'>,
  browser: Browser,
  engine: Engine,
  serverUrl: string,
): OpenAs {
  return async (name, role, view) => {
    const token = await addPerson(engine, name, role);
    const app = await openAppPage(browser, `${serverUrl}/?token=${token}#/${view}`);
    ctx.after(() => app.context.close());
    await app.page.locator('[data-testid="signed-in"]', { hasText: `${name} (${role})` }).waitFor();
    return { ...app, token };
  };
}

export interface PeopleFarm {
  farm: Farm;
  server: RunningServer;
  open: OpenAs;
}

/**
 * The people tests' farm: one simulated workstation (300 ms a prompt), not started, one prompt at a
 * time (no prefetch, as the Studio e2e farms: the order of the renders is the dispatch order),
 * behind a real serve; `open` signs people in to it. All closed when the test ends.
 */
export async function peopleFarm(ctx: Pick<TestContext, 'after'>, suite: StudioSuite): Promise<PeopleFarm> {
  const farm = await startFarm({
    instances: [{ duration: { fixedMs: 300 } }],
    start: false,
    config: { prefetch: false },
  });
  ctx.after(() => farm.close());
  const server = await startServer({ engine: farm.engine, staticDir: suite.built.dir });
  ctx.after(() => server.close());
  return { farm, server, open: peoplePages(ctx, suite.browser, farm.engine, server.url) };
}
