/**
 * The operator's farm settings: the CLI and the API read and write the same stored values, a bad
 * value is refused with words naming the setting and its bounds and changes nothing, reading is
 * allowed over the network and writing is not, and a changed retry_attempts is every unfinished
 * job's budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { startServer } from '../../electron/server/server.js';
import { FARM_SETTINGS, FARM_SETTING_KEYS, type FarmSettingView } from '../../shared/farm-settings.js';
import { runCli } from '../helpers/cli.js';
import { engineFor, importText, jobsDigest, type TestEngine } from '../helpers/engine.js';
import { tempDirFor } from '../helpers/temp-dir.js';

/** The settings rows, byte for byte: equal before and after means nothing was stored. */
function settingsRows(t: TestEngine): string {
  return JSON.stringify(t.engine.db.all('SELECT * FROM settings ORDER BY key'));
}

test('settings set/get/list/reset: the CLI and the API agree on every value, default and unit', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const listed = await t.engine.call('settings.list', {});
  assert.deepEqual(
    listed.map((v) => v.key),
    FARM_SETTING_KEYS,
    'every setting, in the table order',
  );
  for (const v of listed) {
    assert.equal(v.isSet, false);
    assert.equal(v.value, v.default);
    const def = FARM_SETTINGS[v.key];
    if (def.type === 'number')
      assert.deepEqual([v.default, v.unit, v.min, v.max], [def.default, def.unit, def.min, def.max]);
  }
  assert.equal(
    listed.find((v) => v.key === 'output_root')?.default,
    t.engine.outputRoot,
    "output_root's default is the engine's own folder",
  );

  // Set from the CLI, read through the API.
  const set = await runCli(t.dir, 'settings', 'set', 'retry_attempts', '7');
  assert.equal(set.code, EXIT.ok, set.err);
  assert.match(set.out, /retry_attempts = 7 attempts \(was 4\)/);
  const got = await t.engine.call('settings.get', { key: 'retry_attempts' });
  assert.equal(got.value, 7);
  assert.equal(got.isSet, true);

  // Set through the API, read from the CLI (as JSON: the same view).
  await t.engine.call('settings.set', { key: 'grace_s', value: 12.5 });
  const cliGet = await runCli(t.dir, '--json', 'settings', 'get', 'grace_s');
  assert.equal(cliGet.code, EXIT.ok, cliGet.err);
  assert.deepEqual(JSON.parse(cliGet.out) as FarmSettingView, await t.engine.call('settings.get', { key: 'grace_s' }));

  const folder = join(t.dir, 'renders');
  mkdirSync(folder);
  assert.equal((await runCli(t.dir, 'settings', 'set', 'output_root', folder)).code, EXIT.ok);

  const cliList = await runCli(t.dir, '--json', 'settings', 'list');
  assert.deepEqual(JSON.parse(cliList.out) as FarmSettingView[], await t.engine.call('settings.list', {}));
  const text = await runCli(t.dir, 'settings', 'list');
  assert.match(text.out, /^retry_attempts\s+7\s+attempts\s+4\s+set$/m);
  assert.match(text.out, /^stall_timeout_s\s+300\s+s\s+300$/m);

  // Reset from the CLI: back to the default in both, and the row is gone.
  const reset = await runCli(t.dir, 'settings', 'reset', 'retry_attempts');
  assert.equal(reset.code, EXIT.ok, reset.err);
  assert.match(reset.out, /retry_attempts = 4 attempts \(the default\)/);
  const after = await t.engine.call('settings.get', { key: 'retry_attempts' });
  assert.deepEqual([after.value, after.isSet, after.updatedAt, after.updatedBy], [4, false, null, null]);
  assert.equal((await t.engine.call('settings.reset', { key: 'grace_s' })).value, 60);
});

test('a bad setting value is refused with the setting, its bounds and what was given, and nothing changes', async (ctx) => {
  const t = await engineFor(ctx);
  await importText(
    t.engine,
    'l.json',
    JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: [{ id: 'sh1', stage: 'keyframe', template: 'keyframe-img2img' }],
    }),
  );
  await t.engine.call('settings.set', { key: 'stall_timeout_s', value: 90 });
  const aFile = join(t.dir, 'a-file.txt');
  writeFileSync(aFile, 'x');
  const rowsBefore = settingsRows(t);
  const jobsBefore = jobsDigest(t.engine);

  const cases: { args: [string, string]; message: RegExp }[] = [
    {
      args: ['retry_attempts', 'many'],
      message: /retry_attempts must be a whole number from 1 to 100 \(attempts\); got "many"/,
    },
    { args: ['retry_attempts', '2.5'], message: /retry_attempts must be a whole number/ },
    { args: ['retry_attempts', '0'], message: /from 1 to 100/ },
    { args: ['stall_timeout_s', '-5'], message: /stall_timeout_s must be a number from 1 to 86400 \(s\); got "-5"/ },
    { args: ['probe_interval_s', '100000'], message: /probe_interval_s must be a number from 0.2 to 600/ },
    {
      args: ['retry_atempts', '3'],
      message: /"retry_atempts" is not a farm setting; the settings are retry_attempts, /,
    },
    {
      args: ['output_root', 'renders/here'],
      message: /output_root must be an absolute folder path; got "renders\/here"/,
    },
    { args: ['output_root', join(t.dir, 'missing')], message: /does not exist; create the folder first/ },
    { args: ['output_root', aFile], message: /a-file\.txt is not a folder/ },
  ];
  for (const c of cases) {
    const r = await runCli(t.dir, 'settings', 'set', ...c.args);
    assert.equal(r.code, EXIT.badInput, `${c.args.join(' ')}: exit 3`);
    assert.match(r.err, c.message, c.args.join(' '));
  }
  // The same refusals over the API (a number of the wrong kind, a value of the wrong type).
  for (const input of [
    { key: 'quarantine_after', value: 1.5 },
    { key: 'grace_s', value: true },
    { key: 'output_root', value: 42 },
    { key: 'nope', value: 1 },
  ]) {
    await assert.rejects(
      t.engine.call('settings.set', input),
      (e: { code?: string }) => e.code === 'bad_input',
      JSON.stringify(input),
    );
  }
  await assert.rejects(t.engine.call('settings.reset', { key: 'nope' }), /"nope" is not a farm setting/);

  assert.equal(settingsRows(t), rowsBefore, 'no setting was stored or changed');
  assert.equal(jobsDigest(t.engine), jobsBefore, 'no job was touched');
  assert.equal((await t.engine.call('settings.get', { key: 'stall_timeout_s' })).value, 90);
});

test('a stored value edited by hand into nonsense is named with its fix, and reset clears it', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  t.engine.db.run("INSERT INTO settings (key, value_json, updated_at) VALUES ('farm.setting.grace_s', '\"soon\"', 1)");
  await assert.rejects(
    t.engine.call('settings.list', {}),
    /the stored grace_s is invalid .*shotfarm settings reset grace_s/,
  );
  await t.engine.call('settings.reset', { key: 'grace_s' });
  assert.equal((await t.engine.call('settings.get', { key: 'grace_s' })).value, 60);
});

test('a changed retry_attempts becomes the budget of every unfinished job, and new jobs are made with it', async (ctx) => {
  const t = await engineFor(ctx);
  const list = (ids: string[]) =>
    JSON.stringify({
      project: 'P',
      episode: 'E',
      shots: ids.map((id) => ({ id, stage: 'keyframe', template: 'keyframe-img2img' })),
    });
  const { result } = await importText(t.engine, 'a.json', list(['a1', 'a2']));
  const changed: string[] = [];
  t.engine.events.on('job.changed', ({ job }) => void changed.push(job.id));
  await t.engine.call('settings.set', { key: 'retry_attempts', value: 9 });
  for (const id of result.jobIds) assert.equal((await t.engine.call('jobs.get', { id })).maxAttempts, 9);
  assert.deepEqual(changed.sort(), [...result.jobIds].sort(), 'their views went out');
  const more = await importText(t.engine, 'b.json', list(['b1']));
  assert.equal((await t.engine.call('jobs.get', { id: more.result.jobIds[0]! })).maxAttempts, 9);
});

test('over the network the number settings can be changed and reset, the folder settings only read (issue 25: settings were read-only in every browser)', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const web = tempDirFor(ctx, 'shotfarm-static-');
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Shotfarm</title>');
  const server = await startServer({ engine: t.engine, staticDir: web });
  ctx.after(() => server.close());
  const post = async (method: string, body: unknown) => {
    const res = await fetch(`${server.url}/api/call/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; result?: unknown } };
  };
  const list = await post('settings.list', {});
  assert.equal(list.status, 200);
  assert.equal((list.body.result as FarmSettingView[]).length, FARM_SETTING_KEYS.length);
  assert.equal((await post('settings.set', { key: 'output_root', value: '/tmp' })).status, 403);
  assert.equal((await post('settings.reset', { key: 'releases_root' })).status, 403);
  assert.equal((await t.engine.call('settings.get', { key: 'output_root' })).isSet, false);
  assert.equal((await post('settings.set', { key: 'retry_attempts', value: 2 })).status, 200);
  assert.equal((await t.engine.call('settings.get', { key: 'retry_attempts' })).value, 2);
  assert.equal((await post('settings.reset', { key: 'retry_attempts' })).status, 200);
  assert.equal((await t.engine.call('settings.get', { key: 'retry_attempts' })).isSet, false);
  // The farm state is not a local-only matter: the Studio UI pauses and resumes over HTTP.
  const paused = await post('farm.pause', { by: 'Studio UI' });
  assert.equal(paused.status, 200);
  assert.equal((paused.body.result as { farmState: { state: string } }).farmState.state, 'paused');
});

test('a setting says who set it: the farm host is local, a person by their name; the CLI prints it', async (ctx) => {
  const t = await engineFor(ctx);
  const local = await t.engine.call('settings.set', { key: 'grace_s', value: 90 });
  assert.equal(local.updatedBy, 'local');
  const byAna = await t.engine.call(
    'settings.set',
    { key: 'grace_s', value: 120 },
    { kind: 'person', name: 'ana', role: 'operator' },
  );
  assert.equal(byAna.updatedBy, 'ana');
  const cliGet = await runCli(t.dir, 'settings', 'get', 'grace_s');
  assert.match(cliGet.out, /grace_s = 120 s \(set .* UTC by ana; default 60\)/);
  assert.equal((await t.engine.call('settings.reset', { key: 'grace_s' })).updatedBy, null);
});
