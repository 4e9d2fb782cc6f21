/**
 * The settings domain: the operator's farm settings (retries, timeouts, grace, starvation, probe
 * interval, quarantine, output folder — shared/farm-settings.ts), and the optional S3 copy of
 * outputs. A farm setting is stored, then applied at once to the farm in this process and within
 * one probe interval to a farm running in another; writing is local-only. The S3 setting shows
 * where its credentials come from, never what they are, and takes effect when the farm next starts.
 */
import type { FarmSettingKey, FarmSettingView } from '../../../shared/farm-settings.js';
import { actorName } from '../../../shared/people.js';
import { farmSettingViews, resetFarmSetting, setFarmSetting } from '../settings/farm-settings.js';
import { describeS3Settings, getS3Settings, setS3Settings } from '../storage/s3-settings.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function settingsHandlers(ctx: EngineContext): DomainHandlers<'storage'> & DomainHandlers<'settings'> {
  const view = (key: FarmSettingKey): FarmSettingView =>
    farmSettingViews(ctx.db, ctx.settings.folderDefaults).find((v) => v.key === key) as FarmSettingView;
  /** Jobs whose budget changed with the setting are announced; then the farm here applies it. */
  const applied = async (changedJobs: string[], key: FarmSettingKey): Promise<FarmSettingView> => {
    if (changedJobs.length) ctx.announcer.announceUnfinished(changedJobs);
    await ctx.settings.reload('settings');
    return view(key);
  };
  return {
    'settings.list': async () => farmSettingViews(ctx.db, ctx.settings.folderDefaults),
    'settings.get': async ({ key }) => view(key),
    'settings.set': async ({ key, value }, caller) =>
      applied(setFarmSetting(ctx.db, ctx.clock, key, value, actorName(caller)), key),
    'settings.reset': async ({ key }) => applied(resetFarmSetting(ctx.db, ctx.clock, key), key),
    'storage.get': async () => {
      const s = getS3Settings(ctx.db);
      return { s3: s ? describeS3Settings(s) : null };
    },
    'storage.set': async ({ s3 }) => {
      const saved = setS3Settings(ctx.db, ctx.clock, s3);
      return { s3: saved ? describeS3Settings(saved) : null };
    },
  };
}
