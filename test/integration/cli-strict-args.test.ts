/**
 * The CLI's numbers and what it prints from outside: a number flag takes plain decimal only, a bad
 * one (or an empty RunPod key) is a usage error (exit 2) in words naming the flag, with nothing
 * stored; a workstation's GPU name with a bidi override or escape codes reaches the terminal written out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { runCli as cli } from '../helpers/cli.js';
import { REPO } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';
import { startSimInstance } from '../simulator/index.js';

const runpod = ['workers', 'add-runpod', '--name', 'rp', '--endpoint', 'abc123'];

test('workers add-runpod --price-per-hour abc (or 0x10, or 1e3) exits 2 naming the flag, and stores nothing', async (ctx) => {
  const d = tempDirFor(ctx);
  for (const bad of ['abc', '0x10', '1e3', '0', '']) {
    const r = await cli(d, ...runpod, '--price-per-hour', bad);
    assert.equal(r.code, EXIT.usage, `${bad}: ${r.err}`);
    assert.match(
      r.err,
      /--price-per-hour takes a number above 0 written in decimal digits, e\.g\. --price-per-hour 0\.69/,
      bad,
    );
  }
  const r = await cli(d, ...runpod, '--price-per-hour', '0.69', '--max-concurrency', '0x10');
  assert.equal(r.code, EXIT.usage, r.err);
  assert.match(r.err, /--max-concurrency takes a whole number of at least 1/);
  assert.deepEqual(JSON.parse((await cli(d, '--json', 'workers', 'list')).out), []);
  const ok = await cli(d, ...runpod, '--price-per-hour', '0.69', '--max-concurrency', '2');
  assert.equal(ok.code, EXIT.ok, ok.err);
});

test('0x10 is not 16 anywhere the CLI reads a number: workers, jobs, health, hooks, serve', async (ctx) => {
  const d = tempDirFor(ctx);
  const cases: [string[], RegExp][] = [
    [
      ['workers', 'add', 'http://127.0.0.1:9', '--name', 'gpu-01', '--concurrency', '0x10'],
      /--concurrency takes a whole number from 1 to 16/,
    ],
    [
      ['workers', 'add', 'http://127.0.0.1:9', '--name', 'gpu-01', '--vram', 'motion=0x10'],
      /--vram takes STAGE=GB pairs/,
    ],
    [['jobs', 'list', '--limit', '0x10'], /--limit takes a whole number/],
    [['health', '--timeout', '0x10'], /--timeout takes a whole number/],
    [
      ['hooks', 'add-command', 'n', '--on', 'completed', '--retries', '0x3', '--', '/bin/true'],
      /--retries takes a whole number/,
    ],
    [['serve', '--port', '0x10'], /--port takes a whole number from 0 to 65535/],
  ];
  for (const [args, words] of cases) {
    const r = await cli(d, ...args);
    assert.equal(r.code, EXIT.usage, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, words, args.join(' '));
  }
  assert.deepEqual(JSON.parse((await cli(d, '--json', 'workers', 'list')).out), []);
  assert.deepEqual(JSON.parse((await cli(d, '--json', 'hooks', 'list')).out), []);
});

test('workers runpod-key with nothing on stdin exits 2 and says how to pipe the key in', (ctx) => {
  const r = spawnSync(
    process.execPath,
    [join(REPO, 'bin/shotfarm.js'), '--data', tempDirFor(ctx), 'workers', 'runpod-key'],
    { input: '  \n', encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, EXIT.usage, r.stderr);
  assert.match(r.stderr, /read no key on stdin; pipe it in: printf %s "\$KEY" \| shotfarm workers runpod-key/);
});

test("health writes a GPU name's bidi override and escape codes out instead of printing them raw", async (ctx) => {
  const sim = await startSimInstance({ gpuName: 'NVIDIA \u202E0904 XTR\u001b[2J\u0085' });
  ctx.after(() => sim.close());
  const d = tempDirFor(ctx);
  assert.equal((await cli(d, 'workers', 'add', sim.url, '--name', 'gpu-01')).code, EXIT.ok);
  for (const args of [['health'], ['--json', 'health'], ['workers', 'list']]) {
    const r = await cli(d, ...args);
    assert.doesNotMatch(
      r.out + r.err,
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
      args.join(' '),
    );
  }
  const health = await cli(d, 'health');
  assert.equal(health.code, EXIT.ok, health.out);
  assert.match(health.out, /NVIDIA <U\+202E>0904 XTR<U\+001B>\[2J<U\+0085>/);
  const json = JSON.parse((await cli(d, '--json', 'health')).out);
  assert.equal(json.instances[0].gpuName, 'NVIDIA \u202E0904 XTR\u001b[2J\u0085', 'JSON keeps the value, escaped');
});
