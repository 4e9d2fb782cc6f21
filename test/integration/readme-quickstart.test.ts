import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { REPO } from '../helpers/engine.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * The README is executable: the Quick start's try-it block runs verbatim, every command exits 0,
 * `run --until-idle` returns with every imported job completed, and the background simulator is
 * gone afterwards. (The install/test block above it is what runs this test.)
 */

/** The fenced bash blocks of the README's "Quick start" section, in order. */
export function quickStartBlocks(readme: string): string[] {
  const start = readme.indexOf('## Quick start');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

test('the README quick start runs verbatim: every command exits 0 and every imported job completes', {
  timeout: 180_000,
}, async () => {
  const blocks = quickStartBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 2, 'the Quick start has an install block and a try-it block');
  const script = blocks[1] as string;
  for (const port of [8300, 8301])
    assert.equal(await portAnswers(port), false, `port ${port} is taken on this machine; the quick start needs it`);

  // -e: the first command that fails ends the run with its code.
  const child = spawn('bash', ['-e', '-c', script], {
    cwd: REPO,
    env: { ...process.env, SHOTFARM_DATA: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  // The quick start's throw-away data folder (mktemp -d) is named where the farm says it runs.
  const data = /Farm running on (.+)\/shotfarm\.sqlite/.exec(out)?.[1];
  if (data?.startsWith(tmpdir())) rmSync(data, { recursive: true, force: true });
  assert.equal(code, 0, out);

  assert.match(out, /Imported 4 job\(s\)/);
  assert.match(out, /Imported 2 job\(s\)/);
  assert.match(out, /^Stopped\. completed 6\.$/m, 'run --until-idle returned with every job completed');
  assert.match(out, /Wrote 6 row\(s\)/);
  assert.doesNotMatch(out, /cannot run on this farm/);
  // `kill %1` stopped the simulator: its ports close within a few seconds.
  await waitUntil(async () => !(await portAnswers(8300)), {
    what: 'the background simulator to be gone (port 8300 closed)',
    timeoutMs: 5_000,
    pollMs: 100,
  });
});
