/**
 * Issue 25 build item 3, the paths import-rush-refused.test.ts does not cover: a JSON shot's
 * per-stage priority, and the contract's own priority methods called as a script would
 * (jobs.bump, and jobs.restoreOrder — the undo of a bump — asking rush). Over a real `serve` with
 * people: the artist is refused 403 with the rush rule's sentence and nothing changes; the
 * operator's same call is done. (Templates carry no default priority: a row's priority comes from
 * the list, the shot, the stage, the CSV column or the dialog's default, all covered between the two files.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import { makeEngine, RESOURCES } from '../helpers/engine.js';
import { addPerson, callAs } from '../helpers/people.js';

const RUSH_SENTENCE = 'artists cannot make jobs rush (up to high).';

const list = (episode: string, stagePriority?: string): string =>
  JSON.stringify({
    project: 'Moonfall',
    episode,
    shots: [
      {
        id: 'sh010',
        parameters: { prompt: 'x' },
        stages: [
          { stage: 'keyframe', template: 'keyframe-img2img', ...(stagePriority ? { priority: stagePriority } : {}) },
        ],
      },
    ],
  });

async function setup() {
  const t = await makeEngine();
  const server = await startServer({ engine: t.engine, importBaseDir: `${RESOURCES}samples` });
  const artist = await addPerson(t.engine, 'mira', 'artist');
  const operator = await addPerson(t.engine, 'otto', 'operator');
  const importAs = async (token: string, episode: string, stagePriority?: string) => {
    const p = await callAs(server.url, token, 'import.preview', {
      fileName: `${episode}.json`,
      content: list(episode, stagePriority),
    });
    assert.equal(p.status, 200, JSON.stringify(p.body.error));
    return callAs(server.url, token, 'import.commit', {
      previewId: (p.body.result as { previewId: string }).previewId,
    });
  };
  return { t, server, artist, operator, importAs, close: async () => (await server.close(), await t.close()) };
}

test("an artist cannot import rush through a JSON shot's stage priority (403, nothing stored); an operator can", async () => {
  const s = await setup();
  try {
    const refused = await s.importAs(s.artist, 'ep-a', 'rush');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.message, RUSH_SENTENCE);
    assert.equal((await s.t.engine.call('jobs.list', {})).total, 0, 'nothing stored');
    const ok = await s.importAs(s.operator, 'ep-o', 'rush');
    assert.equal(ok.status, 200, JSON.stringify(ok.body.error));
    const id = (ok.body.result as { jobIds: string[] }).jobIds[0] as string;
    assert.equal((await s.t.engine.call('jobs.get', { id })).priority, 'rush');
  } finally {
    await s.close();
  }
});

test('an artist cannot bump their own job to rush over the API, nor ask rush back through restoreOrder; an operator can both', async () => {
  const s = await setup();
  try {
    const own = await s.importAs(s.artist, 'ep-a');
    const id = (own.body.result as { jobIds: string[] }).jobIds[0] as string;
    const bump = await callAs(s.server.url, s.artist, 'jobs.bump', { ids: [id], priority: 'rush' });
    assert.equal(bump.status, 403);
    assert.equal(bump.body.error?.message, RUSH_SENTENCE);
    const restore = await callAs(s.server.url, s.artist, 'jobs.restoreOrder', {
      jobs: [{ id, priority: 'rush', rank: 0 }],
    });
    assert.equal(restore.status, 403);
    assert.equal(restore.body.error?.message, RUSH_SENTENCE);
    assert.equal((await s.t.engine.call('jobs.get', { id })).priority, 'normal', 'unchanged');
    assert.equal(
      (await callAs(s.server.url, s.artist, 'jobs.bump', { ids: [id], priority: 'high' })).status,
      200,
      'up to high is hers',
    );

    assert.equal((await callAs(s.server.url, s.operator, 'jobs.bump', { ids: [id], priority: 'rush' })).status, 200);
    assert.equal((await s.t.engine.call('jobs.get', { id })).priority, 'rush');
    const back = await callAs(s.server.url, s.operator, 'jobs.restoreOrder', {
      jobs: [{ id, priority: 'rush', rank: 0 }],
    });
    assert.equal(back.status, 200, JSON.stringify(back.body.error));
  } finally {
    await s.close();
  }
});
