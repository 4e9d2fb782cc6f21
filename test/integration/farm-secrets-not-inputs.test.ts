/**
 * Issue 29 item 1, the chain reproduced: another local user, against a loopback `serve` with no
 * people, registers a fake ComfyUI of theirs and imports a list whose inputs name the farm's lock
 * record (the control listener's URL and token) and key file — which `serve` took from its import
 * folder, the data folder, and uploaded to the fake. Now serve has no import folder unless named
 * (`--inputs DIR`), and no input may be the farm's own file, by name or by real path (a link into
 * the data folder or the outputs). The other user is real (`setpriv --reuid=nobody`); serve is the
 * real program; the fake ComfyUI is a recording proxy in front of the simulator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../electron/engine/engine.js';
import { startFarmProcess } from '../helpers/farm-process.js';
import { startHostileComfy } from '../helpers/hostile-comfy.js';
import { RESOURCES } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait.js';
import { startSimInstance } from '../simulator/index.js';

const PLATE = `${RESOURCES}samples/plates/sh010.png`;

function list(inputs: string[]): string {
  return JSON.stringify({
    project: 'P',
    episode: 'E',
    shots: inputs.map((path, i) => ({
      id: `sh${i + 1}`,
      stage: 'keyframe',
      template: 'keyframe-img2img',
      inputs: { image: path },
    })),
  });
}

/** What the other user's script prints: each call's answer. */
interface Answer {
  ok: boolean;
  result?: { rows?: { status: string; errors: string[] }[]; previewId?: string; imported?: number };
  error?: { message: string };
}

/** Calls serve's API as the `nobody` user (a separate process), in order; their answers. */
function callsAsNobody(url: string, calls: { method: string; input: unknown }[]): Answer[] {
  const script = `
    const out = [];
    for (const c of JSON.parse(process.argv[1])) {
      const input = c.input === 'PREVIEW' ? { previewId: out[out.length - 1].result.previewId } : c.input;
      const r = await fetch(${JSON.stringify(url)} + '/api/call/' + c.method, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
      out.push(await r.json());
    }
    process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(
    'setpriv',
    [
      '--reuid=nobody',
      '--regid=nogroup',
      '--clear-groups',
      process.execPath,
      '--input-type=module',
      '-e',
      script,
      JSON.stringify(calls),
    ],
    { encoding: 'utf8', timeout: 30_000, cwd: '/' },
  );
  assert.equal(r.status, 0, `the other user's script failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Answer[];
}

test("another local user cannot have serve upload the farm's lock record, key file or a link into its folders to their fake ComfyUI", {
  timeout: 120_000,
}, async (ctx) => {
  if (process.getuid?.() !== 0) return ctx.skip('needs root to act as another local user (setpriv)');
  const sim = await startSimInstance({ port: 0 });
  ctx.after(() => sim.close());
  const uploads: Buffer[] = [];
  const fake = await startHostileComfy(sim.url, [
    {
      match: (m, p) => m === 'POST' && p === '/upload/image',
      handle: (req, res, _up) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          uploads.push(Buffer.concat(chunks));
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ name: 'x.png', subfolder: '', type: 'input' }));
        });
      },
    },
  ]);
  ctx.after(() => fake.close());

  const root = tempDirFor(ctx);
  chmodSync(root, 0o755);
  const data = join(root, 'data');
  const inputs = join(root, 'inputs');
  mkdirSync(inputs);
  const setup = new Engine({ dataDir: data, log: () => undefined });
  await setup.call('templates.add', {
    content: readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8'),
    fileName: 'keyframe-img2img.json',
  });
  await setup.close();
  mkdirSync(join(data, 'outputs'));
  copyFileSync(PLATE, join(data, 'outputs', 'earlier.png'));
  copyFileSync(PLATE, join(inputs, 'ok.png'));
  copyFileSync(PLATE, join(inputs, 'runpod-key.bin')); // a file by the key's name: refused by name
  symlinkSync(join(data, 'engine.lock.json'), join(inputs, 'engine.lock.json'));
  symlinkSync(join(data, 'engine.lock.json'), join(inputs, 'lock.png'));
  symlinkSync(join(data, 'outputs', 'earlier.png'), join(inputs, 'earlier.png'));

  const serve = startFarmProcess('serve', data, { args: ['--inputs', inputs] });
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  const url = serve.url() as string;

  const [added, preview, commit] = callsAsNobody(url, [
    { method: 'instances.add', input: { name: 'mine', url: fake.url, tags: ['img2img'] } },
    {
      method: 'import.preview',
      input: {
        fileName: 'steal.json',
        content: list(['engine.lock.json', 'runpod-key.bin', 'lock.png', 'earlier.png', 'shotfarm.sqlite']),
      },
    },
    { method: 'import.commit', input: 'PREVIEW' },
  ]);
  assert.equal(added?.ok, true, JSON.stringify(added));
  const errors = (preview?.result?.rows ?? []).map((r) => `${r.status}: ${r.errors.join('; ')}`);
  assert.equal(errors.length, 5, JSON.stringify(preview));
  assert.match(
    errors[0]!,
    /^error: .*"engine\.lock\.json".* is one of the farm's own lock, key or database files, which are never an input/,
  );
  assert.match(errors[1]!, /^error: .*"runpod-key\.bin".* is one of the farm's own lock, key or database files/);
  assert.match(errors[2]!, /^error: .*"lock\.png".* (is one of the farm's own|is a link to a file outside)/);
  assert.match(errors[3]!, /^error: .*"earlier\.png".* (is inside the farm's own folders|is a link to a file outside)/);
  assert.match(errors[4]!, /^error: .*"shotfarm\.sqlite".* (does not exist|is one of the farm's own)/);
  assert.equal(commit?.result?.imported ?? 0, 0, JSON.stringify(commit));

  // The fake takes uploads: a plain input in the named folder reaches it, and it is the only one.
  const [okPreview, okCommit] = callsAsNobody(url, [
    { method: 'import.preview', input: { fileName: 'fine.json', content: list(['ok.png']) } },
    { method: 'import.commit', input: 'PREVIEW' },
  ]);
  assert.equal(okPreview?.result?.rows?.[0]?.status, 'new', JSON.stringify(okPreview));
  assert.equal(okCommit?.result?.imported, 1);
  await waitUntil(() => uploads.length > 0, {
    what: 'the plain input to be uploaded to the fake ComfyUI',
    detail: serve.output,
  });
  const plate = readFileSync(PLATE);
  assert.ok(
    uploads.every((u) => u.includes(plate)),
    'only the plate was ever uploaded',
  );
  for (const secret of ['engine.lock.json'].map((f) => readFileSync(join(data, f)))) {
    assert.ok(
      uploads.every((u) => !u.includes(secret.subarray(0, 64))),
      'the lock record never reached the fake',
    );
  }
});

test('serve without --inputs reads no input from any folder (the data folder least of all); --inputs inside the data folder is refused', {
  timeout: 120_000,
}, async (ctx) => {
  const data = tempDirFor(ctx);
  const setup = new Engine({ dataDir: data, log: () => undefined });
  await setup.call('templates.add', {
    content: readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8'),
    fileName: 'keyframe-img2img.json',
  });
  await setup.close();
  const serve = startFarmProcess('serve', data);
  ctx.after(() => serve.stop('SIGKILL'));
  await serve.ready;
  const res = await fetch(`${serve.url()}/api/call/import.preview`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'l.json', content: list(['engine.lock.json']) }),
  });
  const answer = (await res.json()) as Answer;
  assert.equal(answer.result?.rows?.[0]?.status, 'error');
  assert.match(answer.result?.rows?.[0]?.errors[0] ?? '', /the shot list's folder is not known here/);
  await serve.stop('SIGTERM');

  mkdirSync(join(data, 'uploads'), { recursive: true });
  const inside = startFarmProcess('serve', data, { args: ['--inputs', join(data, 'uploads')] });
  ctx.after(() => inside.stop('SIGKILL'));
  assert.equal(await inside.exited, 3, inside.output());
  assert.match(inside.output(), /--inputs: the inputs folder .* is inside the farm's own folder/);
});
