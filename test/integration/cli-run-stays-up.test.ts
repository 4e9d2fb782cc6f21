/**
 * Defect 7 of issue [R]: `shotfarm run` without --until-idle left by itself with exit code 13 as
 * soon as the farm was idle — every engine timer is unref'd, so once nothing ran, nothing kept the
 * process alive. Now it stays up (following, probing, taking jobs from other terminals) until it
 * is stopped, and a stop is a clean exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { engineLockHolder } from '../../electron/engine/lock/engine-lock.js';
import { REPO } from '../helpers/engine.js';
import { seedDataFolder, startFarmProcess } from '../helpers/farm-process.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { startSimInstance } from '../simulator/index.js';

const cli = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(REPO, 'bin/shotfarm.js'), '--data', dir, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });

test('shotfarm run stays up once its farm is idle, takes the next job from another terminal, and stops with exit 0', {
  timeout: 120_000,
}, async (ctx) => {
  const dir = tempDirFor(ctx);
  const sim = await startSimInstance({ name: 'sim-0', duration: { fixedMs: 50 } });
  ctx.after(() => sim.close());
  await seedDataFolder(dir, sim.url);
  const list = (id: string) => {
    const file = join(dir, `${id}.json`);
    writeFileSync(
      file,
      JSON.stringify({ project: 'P', episode: 'E', shots: [{ id, stage: 'keyframe', template: 'txt2img' }] }),
    );
    return file;
  };
  assert.equal(cli(dir, 'import', list('sh1')).status, EXIT.ok);

  const run = startFarmProcess('run', dir);
  ctx.after(() => run.stop('SIGKILL'));
  await run.ready;
  await run.waitFor(/completed +P\/E\/sh1 keyframe take 1/, 'the first job to complete');
  // Idle now: nothing runs, nothing is queued. A command from another terminal still finds the
  // farm held and is answered by it (spawning that CLI takes longer than the idle exit did).
  const status = cli(dir, 'status');
  assert.equal(status.status, EXIT.ok, status.stderr);
  assert.equal(run.child.exitCode, null, `run left by itself while idle:\n${run.output()}`);
  assert.equal(engineLockHolder(dir).held, true, 'the idle farm is still held by run');
  assert.equal(cli(dir, 'import', list('sh2')).status, EXIT.ok);
  await run.waitFor(/completed +P\/E\/sh2 keyframe take 1/, 'the job imported while idle to complete');
  assert.equal(await run.stop('SIGTERM'), EXIT.ok, run.output());
  assert.equal(engineLockHolder(dir).held, false);
});
