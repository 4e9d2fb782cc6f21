import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli as cli } from '../helpers/cli.js';
import { REPO, RESOURCES } from '../helpers/engine.js';
import { startSimInstance } from '../simulator/index.js';
import { tempDirFor } from '../helpers/temp-dir.js';

const templates = [`${RESOURCES}templates/keyframe-img2img.json`, `${RESOURCES}templates/motion-i2v.json`];
const shotList = `${RESOURCES}samples/shot_list.json`;

test('import --dry-run shows the preview and stores nothing', async (ctx) => {
  const d = tempDirFor(ctx);
  assert.equal((await cli(d, 'templates', 'add', ...templates)).code, EXIT.ok);
  const dry = await cli(d, 'import', shotList, '--dry-run');
  assert.equal(dry.code, EXIT.ok);
  assert.match(dry.out, /4 new, 0 already imported, 0 with errors/);
  assert.match(dry.out, /Dry run: nothing was stored/);
  const list = await cli(d, '--json', 'jobs', 'list');
  assert.equal(JSON.parse(list.out).total, 0);
});

test('importing twice says nothing is new; jobs list shows the rush shot first', async (ctx) => {
  const d = tempDirFor(ctx);
  await cli(d, 'templates', 'add', ...templates);
  assert.match((await cli(d, 'import', shotList)).out, /Imported 4 job\(s\)/);
  assert.match((await cli(d, 'import', shotList)).out, /Nothing new: every row was already imported/);
  const page = JSON.parse((await cli(d, '--json', 'jobs', 'list', '--state', 'queued')).out);
  assert.equal(page.total, 3);
  assert.equal(page.rows[0].shot, 'sh020');
});

test('bump --top by id prefix puts a job first in its priority', async (ctx) => {
  const d = tempDirFor(ctx);
  await cli(d, 'templates', 'add', ...templates);
  await cli(d, 'import', shotList);
  const rows = JSON.parse((await cli(d, '--json', 'jobs', 'list', '--state', 'queued')).out).rows;
  const last = rows.at(-1);
  const bumped = await cli(d, 'bump', last.id.slice(0, 8), '--priority', 'rush', '--top');
  assert.equal(bumped.code, EXIT.ok, bumped.err);
  const after = JSON.parse((await cli(d, '--json', 'jobs', 'list', '--state', 'queued')).out).rows;
  assert.equal(after[0].id, last.id);
});

test('a shot list with bad rows exits 3 and says which rows', async (ctx) => {
  const d = tempDirFor(ctx);
  await cli(d, 'templates', 'add', ...templates);
  const csv = join(d, 'bad.csv');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(csv, 'Shot,Stage,Template\nsh1,keyframe,keyframe-img2img\nsh2,keyframe,ghost-template\n');
  const r = await cli(d, 'import', csv, '--project', 'P', '--episode', 'E');
  assert.equal(r.code, EXIT.badInput);
  assert.match(r.out, /template "ghost-template" is not registered/);
  assert.match(r.out, /Imported 1 job\(s\).*1 row\(s\) rejected/);
});

test('a missing file and a wrong argument get clear messages and their exit codes', async (ctx) => {
  const d = tempDirFor(ctx);
  const missing = await cli(d, 'import', join(d, 'nope.json'));
  assert.equal(missing.code, EXIT.badInput);
  assert.match(missing.err, /Cannot read .*nope\.json: no such file/);
  const usage = await cli(d, 'bump');
  assert.equal(usage.code, EXIT.usage);
  const badUrl = await cli(d, 'workers', 'add', 'gpu-01:8188', '--name', 'gpu-01');
  assert.equal(badUrl.code, EXIT.badInput);
  assert.match(badUrl.err, /must be an http:\/\/ or https:\/\/ URL/);
});

test('export runlog writes a CSV file and reports its rows; it never replaces a file (exit 5)', async (ctx) => {
  const d = tempDirFor(ctx);
  const out = join(d, 'runlog.csv');
  const r = await cli(d, 'export', 'runlog', '--out', out, '--from', '2026-01-01');
  assert.equal(r.code, EXIT.ok, r.err);
  assert.match(r.out, /Wrote 0 row\(s\)/);
  assert.match(readFileSync(out, 'utf8'), /^\uFEFFproject,episode,sequence,shot,stage,take,attempt,/);
  const again = await cli(d, 'export', 'runlog', '--out', out);
  assert.equal(again.code, EXIT.conflict);
  assert.match(again.err, /already exists/);
  assert.equal((await cli(d, 'export', 'runlog', '--from', 'last tuesday')).code, EXIT.badInput);
});

test('workers add/list/drain/remove manage workstations; a duplicate name is refused', async (ctx) => {
  const d = tempDirFor(ctx);
  assert.equal(
    (
      await cli(
        d,
        'workers',
        'add',
        'http://127.0.0.1:9/',
        '--name',
        'gpu-01',
        '--tags',
        'img2img,i2v_video',
        '--vram',
        'motion=20',
      )
    ).code,
    EXIT.ok,
  );
  const dup = await cli(d, 'workers', 'add', 'http://127.0.0.1:10', '--name', 'gpu-01');
  assert.equal(dup.code, EXIT.conflict);
  assert.match(dup.err, /already named "gpu-01"/);
  assert.equal((await cli(d, 'workers', 'drain', 'gpu-01')).code, EXIT.ok);
  const list = JSON.parse((await cli(d, '--json', 'workers', 'list')).out);
  assert.deepEqual(
    [list[0].url, list[0].adminState, list[0].tags, list[0].vramOverrides],
    ['http://127.0.0.1:9', 'draining', ['img2img', 'i2v_video'], { motion: 20 }],
  );
  assert.equal((await cli(d, 'workers', 'remove', 'gpu-01')).code, EXIT.ok);
  assert.equal((await cli(d, 'workers', 'remove', 'gpu-01')).code, EXIT.notFound);
});

test('health exits 0 when one workstation answers and 7 when none does', async (ctx) => {
  const d = tempDirFor(ctx);
  const stats = JSON.parse(
    readFileSync(new URL('../fixtures/comfyui-recorded/system_stats.json', import.meta.url), 'utf8'),
  );
  const body = JSON.stringify(stats.events.find((e: { kind: string }) => e.kind === 'http').response.body.json);
  const server = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(req.url === '/queue' ? '{"queue_running": [], "queue_pending": []}' : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ctx.after(() => void server.close());
  assert.equal((await cli(d, 'health')).code, EXIT.unhealthy, 'no workstations at all');
  await cli(d, 'workers', 'add', 'http://127.0.0.1:9', '--name', 'dead');
  const down = await cli(d, 'health', '--timeout', '500');
  assert.equal(down.code, EXIT.unhealthy);
  assert.match(down.out, /unhealthy dead .*connection refused/);
  await cli(d, 'workers', 'add', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, '--name', 'alive');
  const up = await cli(d, 'health', '--timeout', '1000');
  assert.equal(up.code, EXIT.ok, up.out);
  assert.match(up.out, /^ok +alive /m);
  assert.match(up.out, /1 of 2 workstation\(s\) healthy/);
});

test('the shotfarm bin runs from a fresh checkout and returns the documented exit code', (ctx) => {
  const r = spawnSync(process.execPath, [join(REPO, 'bin/shotfarm.js'), '--data', tempDirFor(ctx), 'health'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, EXIT.unhealthy, r.stderr);
  assert.match(r.stdout, /No workstations registered/);
});

/** Through the CLI alone: templates, a shot list, one simulated workstation, then `run --until-idle`. */
async function runUntilIdle(
  ctx: TestContext,
  o: { templates: string[]; importArgs: (dir: string) => string[]; worker: string },
) {
  const sim = await startSimInstance({ duration: { fixedMs: 20 } });
  ctx.after(() => sim.close());
  const d = tempDirFor(ctx);
  await cli(d, 'templates', 'add', ...o.templates);
  await cli(d, 'import', ...o.importArgs(d));
  await cli(d, 'workers', 'add', sim.url, '--name', o.worker);
  return { sim, run: await cli(d, 'run', '--until-idle') };
}

test('run --until-idle renders the imported jobs on a workstation and exits', async (ctx) => {
  const { run } = await runUntilIdle(ctx, {
    templates: [join(REPO, 'test/fixtures/templates/txt2img.json')],
    worker: 'sim',
    importArgs: (d) => {
      const csv = join(d, 'shots.csv');
      writeFileSync(csv, 'Shot,param:prompt\nsh1,moon\nsh2,sun\n');
      return [csv, '--project', 'P', '--episode', 'E', '--stage', 'keyframe', '--template', 'txt2img'];
    },
  });
  assert.equal(run.code, EXIT.ok, run.err);
  assert.match(run.out, /completed +P\/E\/sh1 keyframe take 1/);
  assert.match(run.out, /Stopped\. completed 2\./);
});

test('run --until-idle returns with exit 9 and a reason line when the only work needs a tag no workstation has', async (ctx) => {
  const { sim, run } = await runUntilIdle(ctx, { templates, importArgs: () => [shotList], worker: 'untagged' });
  assert.equal(run.code, EXIT.cannotRun, run.out + run.err);
  assert.match(run.out, /4 job\(s\) cannot run on this farm as it is:/);
  assert.match(run.out, /^ +3 +needs tag img2img, which no workstation has$/m);
  assert.match(run.out, /^ +1 +waits for its keyframe, which needs tag img2img, which no workstation has$/m);
  assert.deepEqual(sim.allCounts(), {}, 'nothing was sent to the server');
});

test('storage s3 set, show and off: the secret is stored but never printed, a bad bucket is refused', async (ctx) => {
  const d = tempDirFor(ctx);
  const secret = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';
  const set = await cli(
    d,
    '--json',
    'storage',
    's3',
    'set',
    '--bucket',
    'renders',
    '--prefix',
    'studio/',
    '--access-key-id',
    'AKIDEXAMPLE',
    '--secret-access-key',
    secret,
  );
  assert.equal(set.code, EXIT.ok, set.err);
  assert.deepEqual(JSON.parse(set.out), { bucket: 'renders', prefix: 'studio/', credentials: 'settings' });
  const show = await cli(d, 'storage', 's3', 'show');
  assert.match(show.out, /"bucket": "renders"/);
  assert.ok(!show.out.includes(secret) && !show.out.includes('AKIDEXAMPLE'), show.out);
  const bad = await cli(d, 'storage', 's3', 'set', '--bucket', 'Not_A_Bucket');
  assert.equal(bad.code, EXIT.badInput);
  assert.match(bad.err, /bucket: must be an S3 bucket name/);
  assert.equal((await cli(d, 'storage', 's3', 'off')).code, EXIT.ok);
  assert.equal((await cli(d, 'storage', 's3', 'show')).out, 'S3 upload is off.');
});
