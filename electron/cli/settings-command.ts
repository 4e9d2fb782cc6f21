/**
 * `shotfarm settings list|get KEY|set KEY VALUE|reset KEY`: the operator's farm settings (retries,
 * timeouts, grace, starvation, probe interval, quarantine, output folder; shared/farm-settings.ts).
 * Stored in the database: a farm running here or in another process on the same data folder (the
 * app, `serve`, `run`) applies a change at its next decision, within one probe interval.
 */
import type { Command } from 'commander';
import type { FarmSettingView } from '../../shared/farm-settings.js';
import { holderWords } from '../engine/lock/lock-record.js';
import { printJson, type EngineApi, type Io, type Run } from './context.js';
import { RemoteEngine } from './remote-engine.js';
import { formatTable, formatTime } from './table.js';

function valueWithUnit(v: FarmSettingView, value: number | string): string {
  return v.unit ? `${value} ${v.unit}` : String(value);
}

function describe(v: FarmSettingView): string[] {
  return [
    `${v.key} = ${valueWithUnit(v, v.value)}${v.isSet ? ` (set ${formatTime(v.updatedAt)} UTC${v.updatedBy ? ` by ${v.updatedBy}` : ''}; default ${v.default})` : ' (default)'}`,
    `  ${v.description}.`,
    ...(v.min !== null ? [`  From ${v.min} to ${v.max}${v.unit ? ` ${v.unit}` : ''}.`] : []),
  ];
}

export function registerSettings(program: Command, io: Io, run: Run): void {
  const settings = program
    .command('settings')
    .description('farm settings: retries, timeouts, grace, probe interval, quarantine, output folder');
  settings
    .command('list')
    .description('every setting with its value, unit and default')
    .action(() =>
      run(async (e, g) => {
        const all = await e.call('settings.list', {});
        if (g.json) return printJson(io, all);
        io.out(
          formatTable(
            ['setting', 'value', 'unit', 'default', ''],
            all.map((v) => [v.key, v.value, v.unit ?? '', v.default, v.isSet ? 'set' : '']),
            72,
          ),
        );
      }),
    );
  settings
    .command('get')
    .description('one setting, what it means and its bounds')
    .argument('<key>')
    .action((key: string) =>
      run(async (e, g) => {
        const v = await e.call('settings.get', { key });
        if (g.json) return printJson(io, v);
        for (const line of describe(v)) io.out(line);
      }),
    );
  settings
    .command('set')
    .description('change a setting; a running farm applies it at its next decision')
    .argument('<key>')
    .argument('<value>', "a number in the setting's unit, or for output_root / releases_root an absolute folder")
    .action((key: string, value: string) =>
      run(async (e, g) => {
        const before = await e.call('settings.get', { key });
        const v = await e.call('settings.set', { key, value });
        if (g.json) return printJson(io, v);
        io.out(`${v.key} = ${valueWithUnit(v, v.value)} (was ${before.value}).`);
        io.out(await appliesWhen(e));
      }),
    );
  settings
    .command('reset')
    .description('back to the default')
    .argument('<key>')
    .action((key: string) =>
      run(async (e, g) => {
        const v = await e.call('settings.reset', { key });
        if (g.json) return printJson(io, v);
        io.out(`${v.key} = ${valueWithUnit(v, v.value)} (the default).`);
        io.out(await appliesWhen(e));
      }),
    );
}

/** When the farm acts on a change made here: now, when it was made through the farm's own engine; else at its next settings check. */
export async function appliesWhen(e: EngineApi): Promise<string> {
  if (e instanceof RemoteEngine) return `Applied now by the engine running this farm: ${holderWords(e.holder)}.`;
  const probe = await e.call('settings.get', { key: 'probe_interval_s' });
  return `A farm running on this data folder (the app, shotfarm serve or run) applies it within ${probe.value} s.`;
}
