/**
 * Registering many workstations through the CLI: a file with errors stores nothing and names every
 * bad line (its own and the engine's — a name or URL already registered); 200 simulated ComfyUI
 * servers in one file are all registered, named from their hosts and probed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli as cli } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { startSimFarm } from '../simulator/index.js';

const list = async (d: string) =>
  JSON.parse((await cli(d, '--json', 'workers', 'list')).out) as {
    name: string;
    url: string;
    health: string;
    gpuName: string | null;
    tags: string[];
  }[];

test('workers import of a CSV file with errors stores nothing and names each bad line', {
  timeout: 60_000,
}, async (ctx) => {
  const d = tempDirFor(ctx);
  assert.equal((await cli(d, 'workers', 'add', 'http://127.0.0.1:9', '--name', 'gpu-01')).code, EXIT.ok);
  const file = join(d, 'farm.csv');
  writeFileSync(
    file,
    [
      'name,url,tags,vram,concurrency',
      'gpu-02,http://127.0.0.1:10,img2img,,1',
      'gpu-03,gpu-03:8188,,,',
      'gpu-04,http://127.0.0.1:11,,motion=abc,',
      'gpu-05,http://127.0.0.1:12,,,0x10',
      'named,http://gpu-[01-04]:8188,,,',
      '',
    ].join('\n'),
  );
  const r = await cli(d, 'workers', 'import', file);
  assert.equal(r.code, EXIT.badInput, r.err);
  assert.match(r.err, /No workstation was added: 4 problem\(s\) in .*farm\.csv:/);
  assert.match(r.err, /^ {2}line 3: the URL "gpu-03:8188" must be an http:\/\/ or https:\/\/ URL/m);
  assert.match(r.err, /^ {2}line 4: vram takes STAGE=GB pairs/m);
  assert.match(r.err, /^ {2}line 5: concurrency must be a whole number from 1 to 16/m);
  assert.match(r.err, /^ {2}line 6: a range makes one workstation per number/m);
  assert.deepEqual(
    (await list(d)).map((w) => w.name),
    ['gpu-01'],
    'nothing of the file was stored',
  );

  // The file's own lines are right now; what the engine finds (taken names and URLs, twice in the file) is named by line too.
  const json = join(d, 'farm.json');
  writeFileSync(
    json,
    JSON.stringify(
      [
        { name: 'gpu-02', url: 'http://127.0.0.1:10', tags: ['img2img'] },
        { name: 'gpu-01', url: 'http://127.0.0.1:13' },
        { name: 'gpu-06', url: 'http://127.0.0.1:9/' },
        { name: 'gpu-07', url: 'http://127.0.0.1:10' },
      ],
      null,
      2,
    ),
  );
  const e = await cli(d, 'workers', 'import', json);
  assert.equal(e.code, EXIT.badInput, e.err);
  assert.match(e.err, /No workstation was added: 3 problem\(s\)/);
  assert.match(e.err, /^ {2}line 9: a workstation is already named "gpu-01"$/m);
  assert.match(e.err, /^ {2}line 13: http:\/\/127\.0\.0\.1:9 is already used by workstation "gpu-01"$/m);
  assert.match(e.err, /^ {2}line 17: http:\/\/127\.0\.0\.1:10 is also on line 2$/m);
  assert.deepEqual(
    (await list(d)).map((w) => w.name),
    ['gpu-01'],
    'nothing of the file was stored',
  );
});

test('workers import of 200 simulated workstations registers them all, named from their hosts, and probes each', {
  timeout: 180_000,
}, async (ctx) => {
  const farm = await startSimFarm({ count: 200, template: { gpuName: 'NVIDIA GeForce RTX 4090' } });
  ctx.after(() => farm.close());
  const d = tempDirFor(ctx);
  const file = join(d, 'farm.csv');
  writeFileSync(file, ['url,tags', ...farm.instances.map((s) => `${s.url},img2img`)].join('\n'));
  const r = await cli(d, 'workers', 'import', file, '--tags', 'studio');
  assert.equal(r.code, EXIT.ok, r.err);
  assert.match(r.out, /^Added 200 workstation\(s\): 200 answered as ComfyUI\.$/m);
  const rows = await list(d);
  assert.equal(rows.length, 200);
  const port = (url: string) => new URL(url).port;
  assert.deepEqual(new Set(rows.map((w) => w.name)), new Set(farm.instances.map((s) => `127.0.0.1-${port(s.url)}`)));
  for (const w of rows) {
    assert.equal(w.health, 'idle', `${w.name} was probed`);
    assert.equal(w.gpuName, 'NVIDIA GeForce RTX 4090', w.name);
    assert.deepEqual(w.tags, ['studio', 'img2img'], w.name);
  }
});
