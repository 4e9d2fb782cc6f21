/**
 * A tracker's columns feed a template's parameters when the row does not set them: the shot's
 * description is the prompt, its frame count the frames. The row's own parameter wins, and a
 * template without such a parameter gets nothing from them (preview.ts withTrackerDefaults).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineFor, type TestEngine } from '../helpers/engine.js';

async function importedParams(t: TestEngine, fileName: string, content: string): Promise<Map<string, unknown>> {
  const preview = await t.engine.call('import.preview', { fileName, content });
  assert.equal(preview.counts.error, 0, JSON.stringify(preview.rows.find((r) => r.status === 'error')));
  await t.engine.call('import.commit', { previewId: preview.previewId });
  return new Map(
    (t.engine.db.all('SELECT shot, params_json FROM jobs') as { shot: string; params_json: string }[]).map((r) => [
      r.shot,
      JSON.parse(r.params_json),
    ]),
  );
}

test("a tracker's description and frame count fill the prompt and frames a row leaves unset", async (ctx) => {
  const t = await engineFor(ctx);
  const csv = [
    'project,episode,shot,stage,template,description,nb frames',
    'Moon,ep1,sh010,keyframe,keyframe-img2img,a lighthouse at dusk,48',
    'Moon,ep1,sh030,motion,motion-i2v,a lighthouse at dusk,48',
    'Moon,ep1,sh050,motion,motion-i2v,a lighthouse at dusk,',
  ].join('\n');
  const params = await importedParams(t, 'tracker.csv', csv);
  assert.deepEqual(params.get('sh010'), { prompt: 'a lighthouse at dusk' });
  // motion-i2v has frames and no prompt: the description feeds nothing there.
  assert.deepEqual(params.get('sh030'), { frames: 48 });
  assert.deepEqual(params.get('sh050'), {});
});

test("a row's own prompt wins over its shot's description", async (ctx) => {
  const t = await engineFor(ctx);
  const list = JSON.stringify({
    project: 'Moon',
    episode: 'ep1',
    shots: [
      { id: 'sh010', description: 'a lighthouse at dusk', stage: 'keyframe', template: 'keyframe-img2img' },
      {
        id: 'sh020',
        description: 'a lighthouse at dusk',
        stage: 'keyframe',
        template: 'keyframe-img2img',
        parameters: { prompt: 'a storm', steps: 30 },
      },
    ],
  });
  const params = await importedParams(t, 'list.json', list);
  assert.deepEqual(params.get('sh010'), { prompt: 'a lighthouse at dusk' });
  assert.deepEqual(params.get('sh020'), { prompt: 'a storm', steps: 30 });
});
