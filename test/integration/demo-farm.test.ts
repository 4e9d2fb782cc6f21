// The demo farm (`shotfarm serve --demo`): its own episodes leave room for the README's sample shot
// lists, which import as the server imports a dropped file and render on the demo's simulated GPUs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom, systemClock } from '../../electron/engine/clock.js';
import { Engine } from '../../electron/engine/engine.js';
import { DEMO_SAMPLES_DIR, startDemoFarm } from '../../electron/server/demo-farm.js';
import type { ApiInput } from '../../shared/api.js';
import { FAST, waitOnEngine } from '../helpers/farm.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The README's samples with the options its commands give (`--project Moonfall --stage keyframe …`). */
const CSV = { project: 'Moonfall', stage: 'keyframe', template: 'keyframe-img2img' };
const SAMPLES: { file: string; mapping?: ApiInput<'import.preview'>['mapping'] }[] = [
  { file: 'shot_list.json' },
  { file: 'kitsu_shots.csv', mapping: CSV },
  { file: 'shotgrid_shots.csv', mapping: { ...CSV, episode: 'ep101' } },
];

test("the README's sample shot lists import into a fresh demo without errors or duplicates, and render there", async () => {
  const tmp = makeTempDir('shotfarm-demo-test-');
  const engine = new Engine({
    dataDir: tmp.path,
    clock: systemClock,
    random: seededRandom(5),
    outputRoot: join(tmp.path, 'out'),
  });
  const demo = await startDemoFarm(engine, { durationMs: 20, producer: false });
  try {
    const demoJobs = (await engine.call('jobs.list', { limit: 1_000 })).rows;
    assert.ok(
      demoJobs.length > 0 && demoJobs.every((j) => j.project === 'Moonfall' && j.episode === 'demo-01'),
      'the demo keeps to its own episode',
    );
    const ids: string[] = [];
    for (const s of SAMPLES) {
      // As the server does for a dropped file: the demo's import folder is resources/samples.
      const preview = await engine.call('import.preview', {
        fileName: s.file,
        content: readFileSync(join(DEMO_SAMPLES_DIR, s.file), 'utf8'),
        baseDir: DEMO_SAMPLES_DIR,
        ...(s.mapping ? { mapping: s.mapping } : {}),
      });
      assert.equal(preview.counts.error, 0, `${s.file}: ${JSON.stringify(preview.rows.flatMap((r) => r.errors))}`);
      assert.equal(preview.counts.duplicate, 0, s.file);
      assert.ok(preview.counts.new > 0, s.file);
      ids.push(...(await engine.call('import.commit', { previewId: preview.previewId })).jobIds);
    }
    assert.equal(ids.length, 8);
    // The demo's scripted failures are not what this test is about: every GPU renders normally.
    for (const sim of demo.sims) sim.setScript([]);
    engine.startScheduler(FAST);
    let states: string[] = [];
    await waitOnEngine(
      engine,
      'the samples to complete',
      async () => {
        const views = await Promise.all(ids.map((id) => engine.call('jobs.get', { id })));
        states = views.map((v) => `${v.shot}/${v.stage} ${v.state} ${v.stateReason ?? ''}`);
        return views.every((v) => v.state === 'completed');
      },
      60_000,
      () => states.join('\n'),
    );
  } finally {
    await engine.close();
    await demo.close();
    tmp.cleanup();
  }
});
