/**
 * The one settings reader (`ctx.settings.get`, electron/engine/settings/setting-reader.ts) and the
 * per-key entries (setting-entries.ts): a value read is the operator's, else the shared table's
 * default, whichever process set it; a change hook runs on reset as on set; each live entry writes
 * and reads back the same field in the setting's unit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Engine } from '../../electron/engine/engine.js';
import { schedulerConfig } from '../../electron/engine/settings/farm-config.js';
import { entryOf } from '../../electron/engine/settings/setting-entries.js';
import { setFarmSetting } from '../../electron/engine/settings/farm-settings.js';
import { inTransaction } from '../../electron/engine/store/database.js';
import { FARM_SETTINGS, FARM_SETTING_KEYS } from '../../shared/farm-settings.js';
import { engineFor, importText } from '../helpers/engine.js';

test("ctx.settings.get: the operator's value, else the table's default; an unset folder is the engine's own; a hand-broken row reads as the default", async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const s = t.engine.settings;
  assert.equal(s.get('retry_attempts'), FARM_SETTINGS.retry_attempts.default);
  assert.equal(s.get('upload_file_max_mb'), FARM_SETTINGS.upload_file_max_mb.default);
  assert.equal(s.get('project_weights'), '');
  assert.equal(s.get('output_root'), join(t.dir, 'outputs'));
  assert.equal(s.get('releases_root'), join(t.dir, 'releases'));
  await t.engine.call('settings.set', { key: 'upload_file_max_mb', value: 3 });
  await t.engine.call('settings.set', { key: 'releases_root', value: t.dir });
  assert.equal(s.get('upload_file_max_mb'), 3);
  assert.equal(s.get('releases_root'), t.dir);
  // Edited by hand: another connection (the sqlite3 shell), as a person would.
  const hand = new Database(join(t.dir, 'shotfarm.sqlite'));
  hand.prepare("UPDATE settings SET value_json = '\"lots\"' WHERE key = 'farm.setting.upload_file_max_mb'").run();
  hand.close();
  assert.equal(
    s.get('upload_file_max_mb'),
    FARM_SETTINGS.upload_file_max_mb.default,
    'an invalid row: the default applies until it is fixed',
  );
});

test('a setting changed by another process on the same data folder is what ctx.settings.get reads next', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const other = new Engine({ dataDir: t.dir, log: () => undefined });
  ctx.after(() => other.close());
  await other.call('settings.set', { key: 'burst_budget_usd_per_day', value: 12.5 });
  assert.equal(t.engine.settings.get('burst_budget_usd_per_day'), 12.5);
  await other.call('settings.reset', { key: 'burst_budget_usd_per_day' });
  assert.equal(t.engine.settings.get('burst_budget_usd_per_day'), FARM_SETTINGS.burst_budget_usd_per_day.default);
});

test("resetting retry_attempts runs its change hook: every unfinished job is back to the table's budget, and announced", async (ctx) => {
  const t = await engineFor(ctx);
  const list = JSON.stringify({
    project: 'P',
    episode: 'E',
    shots: [
      { id: 'a1', stage: 'keyframe', template: 'keyframe-img2img' },
      { id: 'a2', stage: 'keyframe', template: 'keyframe-img2img' },
    ],
  });
  const { result } = await importText(t.engine, 'a.json', list);
  await t.engine.call('settings.set', { key: 'retry_attempts', value: 9 });
  const changed: string[] = [];
  t.engine.events.on('job.changed', ({ job }) => void changed.push(job.id));
  await t.engine.call('settings.reset', { key: 'retry_attempts' });
  for (const id of result.jobIds)
    assert.equal((await t.engine.call('jobs.get', { id })).maxAttempts, FARM_SETTINGS.retry_attempts.default);
  assert.deepEqual(changed.sort(), [...result.jobIds].sort(), 'their views went out');
  await t.engine.call('jobs.cancel', { ids: [result.jobIds[0]!] });
  const [take] = await t.engine.call('jobs.newTake', { ids: [result.jobIds[0]!] });
  assert.equal(take?.maxAttempts, FARM_SETTINGS.retry_attempts.default, 'a new take is made with the budget in force');
});

test("each live setting entry writes its field and reads it back in the setting's unit, from the table's default and from another value", () => {
  const config = schedulerConfig('/unused');
  const live = FARM_SETTING_KEYS.filter((k) => entryOf(k).live);
  assert.ok(live.includes('retry_attempts') && live.includes('output_root') && live.includes('project_weights'));
  for (const key of live) {
    const field = entryOf(key).live!;
    const def = FARM_SETTINGS[key];
    if (def.default !== null)
      assert.deepEqual(field.of(config), def.default, `${key}: the config starts at the table's default`);
    const other =
      def.type === 'number'
        ? def.default === def.max
          ? def.min
          : def.max
        : def.type === 'text'
          ? 'Moonfall=3'
          : '/elsewhere';
    field.put(config, other);
    assert.deepEqual(
      field.of(config),
      def.type === 'text' ? '{"Moonfall":3}' : other,
      `${key}: what is put is what is read`,
    );
  }
});

test('ctx.settings.get reads what is stored after every write: one rolled back is not answered, one committed is at once', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const s = t.engine.settings;
  assert.equal(s.get('grace_s'), FARM_SETTINGS.grace_s.default);
  assert.throws(() =>
    inTransaction(t.engine.db, () => {
      setFarmSetting(t.engine.db, t.engine.clock, 'grace_s', 77, 'test');
      assert.equal(s.get('grace_s'), 77, 'inside the transaction: its own write');
      throw new Error('roll back');
    }),
  );
  assert.equal(s.get('grace_s'), FARM_SETTINGS.grace_s.default, 'the rolled-back value is not remembered');
  setFarmSetting(t.engine.db, t.engine.clock, 'grace_s', 78, 'test');
  assert.equal(s.get('grace_s'), 78);
});
