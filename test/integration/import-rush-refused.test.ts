/**
 * Issue 25 item 3: an artist (no `rush` class) could create rush jobs through import. Over a real
 * `serve` with people: an artist's import whose rows would be rush — a JSON list's own priority, a
 * shot's priority, a CSV Priority column, the dialog's default (the CSV mapping's priority) — is
 * refused 403 `forbidden` with the rush rule's sentence and stores nothing; an operator's same
 * import is stored as rush.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import { makeEngine, RESOURCES } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';

interface Path {
  name: string;
  preview: (episode: string) => Record<string, unknown>;
}

const json = (episode: string, top: object, shot: object): string =>
  JSON.stringify({
    project: 'Moonfall',
    episode,
    ...top,
    shots: [{ id: 'sh010', stage: 'keyframe', template: 'keyframe-img2img', parameters: { prompt: 'x' }, ...shot }],
  });

const PATHS: Path[] = [
  {
    name: "a JSON list's own priority",
    preview: (ep) => ({ fileName: `${ep}.json`, content: json(ep, { priority: 'rush' }, {}) }),
  },
  {
    name: "a JSON shot's priority",
    preview: (ep) => ({ fileName: `${ep}.json`, content: json(ep, {}, { priority: 'rush' }) }),
  },
  {
    name: 'a CSV Priority column',
    preview: (ep) => ({
      fileName: `${ep}.csv`,
      content: `Shot,Prompt,Priority\nsh010,x,rush\n`,
      mapping: { project: 'Moonfall', episode: ep, stage: 'keyframe', template: 'keyframe-img2img' },
    }),
  },
  {
    name: "the Import dialog's default priority",
    preview: (ep) => ({
      fileName: `${ep}.csv`,
      content: `Shot,Prompt\nsh010,x\n`,
      mapping: { project: 'Moonfall', episode: ep, stage: 'keyframe', template: 'keyframe-img2img', priority: 'rush' },
    }),
  },
];

test('an artist cannot import rush jobs by any priority path (403 forbidden, nothing stored); an operator can', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  try {
    const artist = await addPerson(t.engine, 'mira', 'artist');
    const operator = await addPerson(t.engine, 'otto', 'operator');
    const jobCount = async (): Promise<number> => (await t.engine.call('jobs.list', {})).total;
    let n = 0;
    for (const path of PATHS) {
      n++;
      const ep = `ep-${n}`;
      const p = await callAs(server.url, artist, 'import.preview', path.preview(`${ep}-a`));
      assert.equal(p.status, 200, `${path.name}: the artist's preview is allowed (${JSON.stringify(p.body.error)})`);
      const preview = p.body.result as { previewId: string; counts: { new: number }; refusal: string | null };
      assert.equal(preview.counts.new, 1, `${path.name}: one new row`);
      assert.equal(
        preview.refusal,
        'artists cannot make jobs rush (up to high).',
        `${path.name}: the preview says so before the commit`,
      );
      const before = await jobCount();
      const c = await callAs(server.url, artist, 'import.commit', { previewId: preview.previewId });
      assert.equal(c.status, 403, `${path.name}: refused`);
      assert.equal(c.body.error?.code, 'forbidden');
      assert.equal(c.body.error?.message, 'artists cannot make jobs rush (up to high).');
      assert.equal(await jobCount(), before, `${path.name}: nothing stored`);

      const op = await callAs(server.url, operator, 'import.preview', path.preview(`${ep}-o`));
      assert.equal(
        (op.body.result as { refusal: string | null }).refusal,
        null,
        `${path.name}: nothing to refuse an operator`,
      );
      const oc = await callAs(server.url, operator, 'import.commit', {
        previewId: (op.body.result as { previewId: string }).previewId,
      });
      assert.equal(oc.status, 200, `${path.name}: the operator's import is stored (${JSON.stringify(oc.body.error)})`);
      const jobIds = (oc.body.result as { jobIds: string[] }).jobIds;
      assert.equal(jobIds.length, 1);
      const job = await t.engine.call('jobs.get', { id: jobIds[0] as string });
      assert.equal((job as { priority: string }).priority, 'rush', `${path.name}: stored as rush`);
    }
  } finally {
    await server.close();
    await t.close();
  }
});

test('an artist cannot make a new take of a rush job (it would be rush: 403 forbidden, nothing stored); an operator can', async () => {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  try {
    const artist = await addPerson(t.engine, 'mira', 'artist');
    const operator = await addPerson(t.engine, 'otto', 'operator');
    const p = await callAs(server.url, artist, 'import.preview', { fileName: 'nt.json', content: json('nt', {}, {}) });
    const c = await callAs(server.url, artist, 'import.commit', {
      previewId: (p.body.result as { previewId: string }).previewId,
    });
    const id = (c.body.result as { jobIds: string[] }).jobIds[0] as string;
    assert.equal(
      (await callAs(server.url, operator, 'jobs.bump', { ids: [id], priority: 'rush' })).status,
      200,
      'the operator makes her job rush',
    );
    assert.equal(
      (await callAs(server.url, operator, 'jobs.cancel', { ids: [id] })).status,
      200,
      'a cancelled job can have a new take',
    );
    const jobCount = async (): Promise<number> => (await t.engine.call('jobs.list', {})).total;
    const before = await jobCount();
    const refused = await callAs(server.url, artist, 'jobs.newTake', { ids: [id] });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.code, 'forbidden');
    assert.equal(refused.body.error?.message, 'artists cannot make jobs rush (up to high).');
    assert.equal(await jobCount(), before, 'no take stored');
    const ok = await callAs(server.url, operator, 'jobs.newTake', { ids: [id] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body.error));
    assert.equal(await jobCount(), before + 1);
  } finally {
    await server.close();
    await t.close();
  }
});
