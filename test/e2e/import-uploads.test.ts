/**
 * A shot list imported from a browser carries its input images: picked together with the list
 * (the browser's File API), hashed in the page, sent to the server (PUT /api/uploads/<sha256>),
 * and the job renders with them — the workstation receives exactly the bytes the page picked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCES } from '../helpers/engine.js';
import { studioSuite } from './support/studio.js';

const suite = studioSuite();

test('a shot list picked with its images is previewed (the one not picked named missing), imported, and renders with the uploaded image', {
  timeout: 90_000,
}, async (ctx) => {
  const studio = await suite.open(ctx, { instances: [{ duration: { fixedMs: 300 } }], templates: ['kf-img2img.json'] });
  const { page, farm } = studio;
  const plate = readFileSync(join(RESOURCES, 'samples/plates/sh010.png'));
  const list = JSON.stringify({
    project: 'Moonfall',
    episode: 'ep101',
    shots: [
      {
        id: 'sh010',
        stage: 'keyframe',
        template: 'kf-img2img',
        parameters: { prompt: 'Mira looks up' },
        inputs: { image: 'plates/sh010.png' },
      },
      {
        id: 'sh020',
        stage: 'keyframe',
        template: 'kf-img2img',
        parameters: { prompt: 'close-up' },
        inputs: { image: 'plates/sh020.png' },
      },
    ],
  });
  // The list and one of its two images, picked together (no folder: the image goes by its name).
  await page.locator('[data-testid="import-file"]').setInputFiles([
    { name: 'moonfall.json', mimeType: 'application/json', buffer: Buffer.from(list) },
    { name: 'sh010.png', mimeType: 'image/png', buffer: plate },
  ]);
  const dialog = page.locator('[data-testid="import-dialog"]');
  await dialog.waitFor();
  await page.waitForFunction(
    `document.querySelectorAll('[data-row-status="new"]').length === 1 && document.querySelectorAll('[data-row-status="error"]').length === 1`,
  );
  assert.match(
    (await dialog.textContent()) ?? '',
    /input file "plates\/sh020\.png" for "image" is missing: it was not sent with the shot list/,
  );
  await studio.screenshot('import-uploads-preview');
  await page.locator('[data-testid="import-confirm"]').click();
  await dialog.waitFor({ state: 'detached' });

  const hash = createHash('sha256').update(plate).digest('hex');
  const [job] = (await farm.engine.call('jobs.list', {})).rows;
  assert.ok(job);
  await farm.waitForStates([job.id], ['completed'], 60_000);
  const stored = farm.engine.db.one('SELECT inputs_json FROM jobs WHERE id = ?', job.id) as { inputs_json: string };
  assert.deepEqual(JSON.parse(stored.inputs_json), { image: join(farm.dir, 'uploads', hash) });
  // What the workstation holds as the job's input is the picked file, byte for byte.
  const view = await fetch(
    `${farm.sims[0]?.url}/view?filename=${hash}&type=input&subfolder=${encodeURIComponent(`shotfarm/${job.id}`)}`,
  );
  assert.equal(view.status, 200);
  assert.equal(
    createHash('sha256')
      .update(Buffer.from(await view.arrayBuffer()))
      .digest('hex'),
    hash,
  );
  assert.deepEqual(studio.pageErrors, []);
});
