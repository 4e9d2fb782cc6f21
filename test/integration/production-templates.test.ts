// The shipped production templates (SDXL img2img keyframe, SVD image-to-video motion) run end to
// end on simulated workstations through the real engine: the README's sample shot list renders.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCES } from '../helpers/engine.js';
import { executedCount, startFarm } from '../helpers/farm.js';

const PRODUCTION_TEMPLATES = ['keyframe-img2img.json', 'motion-i2v.json'].map((f) => join(RESOURCES, 'templates', f));
const TAGS = ['img2img', 'i2v_video'];

test('resources/samples/shot_list.json renders on simulated workstations with the production templates', async () => {
  const farm = await startFarm({ instances: [{ tags: TAGS }, { tags: TAGS }], templates: PRODUCTION_TEMPLATES });
  try {
    const preview = await farm.engine.call('import.preview', {
      fileName: 'shot_list.json',
      content: readFileSync(join(RESOURCES, 'samples/shot_list.json'), 'utf8'),
      baseDir: join(RESOURCES, 'samples'),
    });
    assert.deepEqual(
      preview.counts,
      { new: 4, duplicate: 0, error: 0 },
      JSON.stringify(preview.rows.map((r) => r.errors)),
    );
    await farm.engine.call('import.commit', { previewId: preview.previewId });
    const ids = preview.rows.map((r) => r.jobId as string);
    const jobs = await farm.waitForStates(ids, ['completed'], 60_000);
    for (const id of ids) assert.equal(executedCount(farm, id), 1, 'each job rendered exactly once');

    const motion = jobs.find((j) => j.stage === 'motion')!;
    const keyframe = jobs.find((j) => j.shot === motion.shot && j.stage === 'keyframe')!;
    assert.equal(motion.dependsOn, keyframe.id);
    const assets = farm.engine.db.all(
      'SELECT j.stage, a.media_type, a.width, a.height, a.template_name FROM assets a JOIN jobs j ON j.id = a.job_id ORDER BY j.stage, a.path',
    ) as { stage: string; media_type: string; width: number; height: number; template_name: string }[];
    // Three keyframes from the plates (VAEEncode keeps the plate size), one SVD clip at the template's 1024×576.
    assert.deepEqual(
      assets.map((a) => [a.stage, a.template_name, a.media_type]),
      [
        ['keyframe', 'keyframe-img2img', 'image/png'],
        ['keyframe', 'keyframe-img2img', 'image/png'],
        ['keyframe', 'keyframe-img2img', 'image/png'],
        ['motion', 'motion-i2v', 'image/webp'],
      ],
    );
    assert.deepEqual([assets[3]!.width, assets[3]!.height], [1024, 576]);
  } finally {
    await farm.close();
  }
});
