/**
 * Two people at once on one farm, each in their own browser context with their own token: the
 * artist imports by dropping a shot list; the operator bumps it to rush and it renders before the
 * operator's own earlier job; the artist is not offered a cancel of the operator's job (disabled,
 * saying why) and the server refuses it with the policy's sentence; the run log names who imported and who acted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addPerson, callAs } from '../helpers/people.js';
import { peopleFarm } from './support/people.js';
import { dropFile, row, shotList, studioSuite } from './support/studio.js';

const suite = studioSuite();

test('an artist and an operator: import, rush, a refused cancel with its sentence, and a run log naming both', {
  timeout: 120_000,
}, async (ctx) => {
  // One prompt at a time: the order of the renders is the dispatch order.
  const { farm, server, open } = await peopleFarm(ctx, suite);
  const artist = await open('mira', 'artist', 'queue');
  const operator = await open('otto', 'operator', 'queue');
  assert.equal(
    await artist.page.locator('[data-testid="farm-pause"]').count(),
    0,
    'an artist is not shown the farm controls',
  );
  assert.equal(await operator.page.locator('[data-testid="farm-pause"]').count(), 1);

  // The operator's own job first (imported earlier, so it would render first at equal priority).
  await dropFile(operator.page, 'otto.json', shotList([{ id: 'sh900' }], 'Moonfall', 'ep-otto'), 'application/json');
  await operator.page.locator('[data-testid="import-confirm"]').click();
  await row(operator.page, 'sh900').waitFor();
  // The artist drops theirs.
  await dropFile(artist.page, 'mira.json', shotList([{ id: 'sh010' }], 'Moonfall', 'ep-mira'), 'application/json');
  await artist.page.locator('[data-testid="import-confirm"]').click();
  await row(artist.page, 'sh010').waitFor();
  await row(artist.page, 'sh900').waitFor();
  const jobs = (await farm.engine.call('jobs.list', {})).rows;
  const mine = jobs.find((j) => j.shot === 'sh010');
  const theirs = jobs.find((j) => j.shot === 'sh900');
  assert.equal(mine?.importedBy, 'mira');
  assert.equal(theirs?.importedBy, 'otto');

  // An artist may bump up to high only: no rush in their menu.
  await row(artist.page, 'sh010').click();
  const artistOptions = await artist.page
    .locator('[data-testid="actionbar"] select[data-action="bump"] option')
    .allTextContents();
  assert.ok(!artistOptions.includes('rush') && artistOptions.includes('high'), artistOptions.join(','));

  // The operator bumps the artist's shot to rush.
  await row(operator.page, 'sh010').click();
  await operator.page.locator('.selcount', { hasText: '1 selected' }).waitFor();
  await operator.page.locator('[data-testid="actionbar"] select[data-action="bump"]').selectOption('rush');
  await farm.waitFor('the bump to be stored', async () => (await farm.job(mine!.id)).priority === 'rush');

  // The artist tries to cancel the operator's job: refused, with the sentence, and nothing changes.
  // From the job's drawer (opened by its address), so the action is surely on that job.
  await artist.page.evaluate(`location.hash = '#/queue/job/${theirs!.id}'`);
  const drawer = artist.page.locator(`[data-testid="job-drawer"][data-job-id="${theirs!.id}"]`);
  // Not offered and then refused: the drawer's Cancel is disabled, saying why; the server refuses it anyway.
  const cancel = drawer.locator('[data-testid="drawer-actions"] [data-drawer-action="cancel"]');
  await cancel.waitFor();
  assert.equal(await cancel.isDisabled(), true);
  assert.equal(
    await cancel.getAttribute('title'),
    'Imported by someone else: artists may cancel only the jobs they imported.',
  );
  const refused = await callAs(server.url, artist.token, 'jobs.cancel', { ids: [theirs!.id] });
  assert.equal(
    refused.body.error?.message,
    'artists cannot cancel jobs imported by others (that job was imported by someone else).',
  );
  assert.equal((await farm.job(theirs!.id)).state, 'queued');

  // The farm starts: the rush shot renders first.
  farm.startScheduler();
  const done = await farm.waitForStates([mine!.id, theirs!.id], ['completed'], 60_000);
  const [a, b] = done;
  assert.ok(
    (a?.startedAt ?? Infinity) < (b?.startedAt ?? 0),
    "the rush shot started before the operator's earlier job",
  );

  // The drawer's history says who did each step: the artist imported, the scheduler ran it.
  // Done jobs leave the Active view: open the drawer by its address, as a link would.
  await operator.page.evaluate(`location.hash = '#/queue/job/${mine!.id}'`);
  const history = operator.page.locator('[data-testid="history"]');
  await history.locator('li', { hasText: '(mira)' }).waitFor();
  await history.locator('li', { hasText: '(scheduler)' }).first().waitFor();
  // The run log (exported by a lead) names both people.
  const leadToken = await addPerson(farm.engine, 'lena', 'lead');
  const res = await fetch(`${server.url}/api/call/export.runlog`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${leadToken}` },
    body: JSON.stringify({ path: 'runlog.csv' }),
  });
  assert.equal(res.status, 200);
  const csv = readFileSync(join(farm.dir, 'exports', 'runlog.csv'), 'utf8')
    .trim()
    .split(/\r?\n/);
  const header = (csv[0] as string).split(',');
  assert.deepEqual(header.slice(-3), ['imported_by', 'last_action_by', 'cost_usd']);
  // job_id, then the columns appended since: who imported and acted, and a cloud attempt's cost (empty on the LAN).
  const line = csv.find((l) => l.includes(`,${mine!.id},`)) as string;
  assert.ok(line?.endsWith(`,${mine!.id},mira,otto,`), line);
  assert.deepEqual(
    [...artist.errors, ...operator.errors].filter((e) => !/403|Forbidden/.test(e)),
    [],
  );
});
