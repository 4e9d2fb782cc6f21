/**
 * A row may wait for a stage an earlier import stored. The preview asks the store for every such
 * stage at once (per project, episode and stage, a few hundred shots a statement: store/job-store.ts
 * shotsWithStage), so the answer must stay per shot: the same shot code in another episode, another
 * stage of the same shot, or a shot with nothing stored does not count — on both stores, and past
 * one lookup's 500 shots.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor, type TestEngine } from '../helpers/engine.js';
import { forEachStore } from '../helpers/test-store.js';

/** More shots than one SQLite lookup asks about (500), so the lookup goes in chunks. */
const SHOTS = 620;
const code = (i: number): string => `sh${String(i).padStart(4, '0')}`;

function list(episode: string, shots: { id: string; stage: string; depends_on?: string }[]): string {
  return JSON.stringify({
    project: 'Stored',
    episode,
    // A stage that waits for another is written in the shot's stages list, as the format asks.
    shots: shots.map((s) => {
      const stage = {
        stage: s.stage,
        template: s.stage === 'keyframe' ? 'keyframe-img2img' : 'motion-i2v',
        ...(s.depends_on ? { depends_on: s.depends_on } : {}),
        parameters: s.stage === 'keyframe' ? { prompt: s.id } : { frames: 25 },
      };
      return s.depends_on ? { id: s.id, stages: [stage] } : { id: s.id, ...stage };
    }),
  });
}

async function imported(t: TestEngine, content: string) {
  const preview = await t.engine.call('import.preview', { fileName: 'stored.json', content });
  await t.engine.call('import.commit', { previewId: preview.previewId });
  return preview;
}

forEachStore((store) => {
  test(`a row waiting for a stage an earlier import stored is found per shot, episode and stage on ${store}`, {
    timeout: 120_000,
  }, async (ctx) => {
    const t = await engineFor(ctx, { store });
    // Stored: the even shots' keyframes in ep1; shot 1's "motion" (a stage other than the one waited for).
    const first = [
      ...Array.from({ length: SHOTS }, (_, i) => i)
        .filter((i) => i % 2 === 0)
        .map((i) => ({ id: code(i), stage: 'keyframe' })),
      { id: code(1), stage: 'motion' },
    ];
    await imported(t, list('ep1', first));
    // Then every shot's "motion2" waiting for its keyframe, in ep1 and in ep2 (where nothing is stored).
    for (const episode of ['ep1', 'ep2']) {
      const preview = await imported(
        t,
        list(
          episode,
          Array.from({ length: SHOTS }, (_, i) => ({ id: code(i), stage: 'motion2', depends_on: 'keyframe' })),
        ),
      );
      const errorShots = preview.rows.filter((r) => r.status === 'error').map((r) => r.shot);
      const expected =
        episode === 'ep1'
          ? Array.from({ length: SHOTS }, (_, i) => i)
              .filter((i) => i % 2 === 1)
              .map(code)
          : Array.from({ length: SHOTS }, (_, i) => code(i));
      assert.deepEqual(errorShots, expected, `${episode}: the rows whose keyframe is not stored`);
      for (const r of preview.rows.filter((row) => row.status === 'error'))
        assert.match(r.errors.join(), /depends on stage "keyframe", which this shot does not have/);
      assert.equal(preview.counts.new, episode === 'ep1' ? SHOTS / 2 : 0);
    }
  });
});
