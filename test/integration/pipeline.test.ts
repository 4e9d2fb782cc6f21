import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { executedCount, farmFor, receivedCount, type Farm } from '../helpers/farm.js';
import { RESOURCES } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const TEMPLATES = ['kf-img2img.json', 'motion-from-image.json', 'txt2img.json'];

/** `inputs`: the shot list's folder — beside the farm, never its data folder (the farm's own files are never an input). */
async function importChain(farm: Farm, inputs: string, plate: string, shot = 'sh010') {
  const list = {
    project: 'P',
    episode: 'E',
    shots: [
      {
        id: shot,
        stages: [
          { stage: 'keyframe', template: 'kf-img2img', parameters: { prompt: 'moon' }, inputs: { image: plate } },
          { stage: 'motion', template: 'motion-from-image', depends_on: 'keyframe' },
        ],
      },
    ],
  };
  const preview = await farm.engine.call('import.preview', {
    fileName: 'l.json',
    content: JSON.stringify(list),
    baseDir: inputs,
  });
  assert.deepEqual(
    preview.counts,
    { new: 2, duplicate: 0, error: 0 },
    JSON.stringify(preview.rows.map((r) => r.errors)),
  );
  await farm.engine.call('import.commit', { previewId: preview.previewId });
  const [kf, motion] = preview.rows.map((r) => r.jobId as string) as [string, string];
  return { kf, motion };
}

test('keyframe → motion: the plate is uploaded, the keyframe output feeds the motion job on its workstation', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ vramTotalGb: 24 }], templates: TEMPLATES });
  const inputs = tempDirFor(ctx);
  copyFileSync(join(RESOURCES, 'samples/plates/sh010.png'), join(inputs, 'plate.png'));
  const { kf, motion } = await importChain(farm, inputs, 'plate.png');
  assert.equal((await farm.job(motion)).state, 'pending');
  await farm.waitForStates([kf, motion], ['completed'], 30_000);
  // The motion prompt the server ran loaded the keyframe's output under the job's upload folder.
  const entry = await new ComfyClient(farm.sims[0]!.url).getHistory(motion);
  const loadImage = (entry!.prompt as Record<string, { inputs: Record<string, unknown> }>)['2'];
  assert.match(String(loadImage?.inputs.image), new RegExp(`^shotfarm/${motion}/kf_\\d{5}_\\.png$`));
  const kfEntry = await new ComfyClient(farm.sims[0]!.url).getHistory(kf);
  const kfLoad = (kfEntry!.prompt as Record<string, { inputs: Record<string, unknown> }>)['10'];
  assert.equal(kfLoad?.inputs.image, `shotfarm/${kf}/plate.png`);
  for (const id of [kf, motion]) assert.equal(executedCount(farm, id), 1);
  const ledger = farm.engine.db.all(
    'SELECT j.stage, a.seed, a.template_name, a.template_hash, a.width FROM assets a JOIN jobs j ON j.id = a.job_id ORDER BY j.stage',
  ) as {
    stage: string;
    seed: number;
    template_name: string;
    template_hash: string;
    width: number;
  }[];
  assert.deepEqual(
    ledger.map((l) => [l.stage, l.template_name]),
    [
      ['keyframe', 'kf-img2img'],
      ['motion', 'motion-from-image'],
    ],
  );
  for (const l of ledger) assert.match(l.template_hash, /^[0-9a-f]{64}$/);
});

test('an input file that disappeared after import fails the job before any GPU is used', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}], templates: TEMPLATES, start: false });
  const inputs = tempDirFor(ctx);
  copyFileSync(join(RESOURCES, 'samples/plates/sh010.png'), join(inputs, 'plate.png'));
  const { kf, motion } = await importChain(farm, inputs, 'plate.png');
  rmSync(join(inputs, 'plate.png'));
  farm.startScheduler();
  const [v] = await farm.waitForStates([kf], ['failed_final']);
  assert.match(v?.stateReason ?? '', /input "image" file .*plate\.png is missing or unreadable/);
  assert.equal(receivedCount(farm, kf), 0);
  const m = await farm.job(motion);
  assert.equal(m.state, 'pending');
  assert.match(m.stateReason ?? '', /its dependency keyframe take 1 failed; make a new take of it/);
});

test('a new take of a failed keyframe re-arms the motion job waiting on it', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['error'] }], templates: TEMPLATES });
  const inputs = tempDirFor(ctx);
  copyFileSync(join(RESOURCES, 'samples/plates/sh010.png'), join(inputs, 'plate.png'));
  const { kf, motion } = await importChain(farm, inputs, 'plate.png');
  await farm.waitForStates([kf], ['failed_final']);
  assert.match((await farm.job(motion)).stateReason ?? '', /failed; make a new take of it/);
  const [take2] = await farm.engine.call('jobs.newTake', { ids: [kf] });
  const m = await farm.job(motion);
  assert.equal(m.dependsOn, take2?.id);
  assert.match(m.stateReason ?? '', /waiting for keyframe take 2 to complete/);
  await farm.waitForStates([take2!.id, motion], ['completed'], 30_000);
});
