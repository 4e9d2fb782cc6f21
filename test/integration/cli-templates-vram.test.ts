/** `shotfarm templates show NAME` (VRAM and run time) and `templates pin NAME …` through the real CLI on a data folder. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli as cli } from '../helpers/cli.js';
import { engineFor, RESOURCES } from '../helpers/engine.js';
import { RTX3060, RTX4090, seedTemplateRuns } from '../helpers/template-runs.js';
import { tempDirFor } from '../helpers/temp-dir.js';

test('templates show prints declared VRAM (no run measured yet); pin declared is shown and auto removes it; a bad pin is refused', async (ctx) => {
  const d = tempDirFor(ctx);
  assert.equal((await cli(d, 'templates', 'add', `${RESOURCES}templates/keyframe-img2img.json`)).code, EXIT.ok);
  const show = await cli(d, 'templates', 'show', 'keyframe-img2img');
  assert.equal(show.code, EXIT.ok, show.err);
  assert.match(show.out, /Template keyframe-img2img v1: declared 10 GB; learned after 5 runs, \+10 %/);
  assert.match(show.out, /no run measured yet: admission uses the declared number/);
  const pinned = await cli(d, 'templates', 'pin', 'keyframe-img2img', 'declared');
  assert.equal(pinned.code, EXIT.ok, pinned.err);
  assert.match(pinned.out, /declared 10 GB, pinned to declared/);
  const json = JSON.parse((await cli(d, '--json', 'templates', 'show', 'keyframe-img2img')).out) as { pin: string };
  assert.equal(json.pin, 'declared');
  assert.doesNotMatch((await cli(d, 'templates', 'pin', 'keyframe-img2img', 'auto')).out, /pinned/);
  const bad = await cli(d, 'templates', 'pin', 'keyframe-img2img', 'sometimes');
  assert.notEqual(bad.code, EXIT.ok);
  assert.match(bad.err, /pin must be one of auto, declared, learned; got 'sometimes'/);
  const missing = await cli(d, 'templates', 'show', 'nope');
  assert.notEqual(missing.code, EXIT.ok);
  assert.match(missing.err, /No template named nope/);
});

test('templates show prints the learned run time per GPU model: median and p90 of warm runs, cold starts apart, "not enough runs yet" below the threshold', async (ctx) => {
  // The runs written as the engine writes them; the CLI then reads the same data folder.
  const t = await engineFor(ctx);
  await seedTemplateRuns(t);
  const fresh = await cli(t.dir, 'templates', 'show', 'motion-i2v');
  assert.match(fresh.out, /Run time of v1 .*\n {2}no completed run yet/);
  const show = await cli(t.dir, 'templates', 'show', 'keyframe-img2img');
  assert.equal(show.code, EXIT.ok, show.err);
  const lines = show.out.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Run time of v1'));
  assert.ok(at > 0, show.out);
  assert.match(lines[at]!, /a median and p90 after 3 runs; cold starts apart/);
  assert.match(lines[at + 1]!, /^gpu\s+runs\s+median\s+p90\s+cold_runs\s+cold_median$/);
  assert.match(lines[at + 2]!, /^NVIDIA GeForce RTX 3060\s+2\s+not enough runs yet\s+—\s+1\s+3 m 20 s$/);
  assert.match(lines[at + 3]!, /^NVIDIA GeForce RTX 4090\s+5\s+30 s\s+46 s\s+1\s+1 m 40 s$/);
  const json = JSON.parse((await cli(t.dir, '--json', 'templates', 'show', 'keyframe-img2img')).out) as {
    runTimes: { gpus: { gpu: string; p50Ms: number | null }[] };
  };
  assert.deepEqual(
    json.runTimes.gpus.map((g) => [g.gpu, g.p50Ms]),
    [
      [RTX3060, null],
      [RTX4090, 30_000],
    ],
  );
});
