/**
 * The CLI's import checks nodes and models against the node lists the last farm run stored — it
 * runs no farm itself — and says so when none is known yet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURE_TEMPLATES, startFarm } from '../helpers/farm.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const shots = (dir: string): string => {
  const file = join(dir, 'post.json');
  writeFileSync(
    file,
    JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [
        { id: 'p1', stage: 'post', template: 'needs-custom-node' },
        { id: 'k1', stage: 'keyframe', template: 'txt2img', parameters: { ckpt: 'hero.safetensors' } },
      ],
    }),
  );
  return file;
};

test('import without any stored node list says the node/model check was skipped', async () => {
  const d = makeTempDir();
  try {
    await runCli(
      d.path,
      'templates',
      'add',
      resolve(FIXTURE_TEMPLATES, 'needs-custom-node.json'),
      resolve(FIXTURE_TEMPLATES, 'txt2img.json'),
    );
    const r = await runCli(d.path, 'import', shots(d.path), '--dry-run');
    assert.equal(r.code, EXIT.ok, r.out + r.err);
    assert.match(r.out, /^Note: node lists not known yet: the node\/model check was skipped$/m);
  } finally {
    d.cleanup();
  }
});

test("the CLI's import checks nodes and models against the node lists a farm stored", async () => {
  const farm = await startFarm({ instances: [{}] });
  try {
    await farm.waitFor('the node list', () => farm.engine.scheduler!.readiness().every((i) => i.nodeListKnown));
    const stored = farm.engine.db.all('SELECT instance_id FROM instance_node_lists');
    assert.equal(stored.length, 1, 'the list was stored when loaded');
    const r = await runCli(farm.dir, 'import', shots(farm.dir), '--dry-run');
    assert.equal(r.code, EXIT.badInput, r.out);
    assert.match(r.out, /node `VHS_VideoCombine` is not installed on any workstation/);
    assert.match(r.out, /model `hero\.safetensors` \(CheckpointLoaderSimple\.ckpt_name\) is not available on any/);
    assert.doesNotMatch(r.out, /node lists not known yet/);
  } finally {
    await farm.close();
  }
});
