/**
 * Issue 29: one shared pool of 20 import previews let one person's previews evict everyone else's
 * (a preview another person was about to confirm expired under them). Now each person keeps their
 * own 20: a person's next preview drops their own oldest, never another's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Caller } from '../../shared/people.js';
import { engineFor, RESOURCES } from '../helpers/engine.js';

const list = (episode: string): string =>
  JSON.stringify({
    project: 'Moonfall',
    episode,
    shots: [{ id: 'sh010', stage: 'keyframe', template: 'keyframe-img2img', parameters: { prompt: 'x' } }],
  });

test("one person's previews never evict another's: 25 previews of ana leave ben's to commit, and drop only ana's oldest", async (t) => {
  const { engine } = await engineFor(t);
  const ana: Caller = { kind: 'person', name: 'ana', role: 'artist' };
  const ben: Caller = { kind: 'person', name: 'ben', role: 'artist' };
  const preview = async (who: Caller, episode: string) =>
    (
      await engine.call(
        'import.preview',
        { fileName: `${episode}.json`, content: list(episode), baseDir: `${RESOURCES}samples` },
        who,
      )
    ).previewId;

  const bens = await preview(ben, 'ben-ep');
  const anas: string[] = [];
  for (let n = 0; n < 25; n++) anas.push(await preview(ana, `ana-${n}`));

  const done = await engine.call('import.commit', { previewId: bens }, ben);
  assert.equal(done.imported, 1, "ben's preview is still there");
  await assert.rejects(
    engine.call('import.commit', { previewId: anas[4] as string }, ana),
    /expired or was already imported/,
    "ana's 5th oldest went to make room for her own",
  );
  assert.equal(
    (await engine.call('import.commit', { previewId: anas[5] as string }, ana)).imported,
    1,
    'her 20 newest are kept',
  );
});
