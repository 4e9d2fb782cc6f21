/**
 * docs/settings.md's table is the settings table's own: one row per key of `FARM_SETTINGS`
 * (shared/farm-settings.ts), none more, each with the default and unit the code has. A setting added
 * to the code without its row, or a default changed in one place only, fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FARM_SETTINGS, FARM_SETTING_KEYS, type FarmSettingDef } from '../../shared/farm-settings.js';
import { readRepoFile, section } from './markdown.js';

type Row = { key: string; def: string; unit: string };

/** The rows of the first table under `## The settings`: `| \`key\` | default | unit | … |`. */
export function settingsRows(md: string): Row[] {
  return section(md, 'The settings')
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const cells = l.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
      return { key: (cells[0] as string).replace(/`/g, ''), def: cells[1] as string, unit: cells[2] as string };
    });
}

/** How the docs write a setting's default and unit. */
export function documented(_key: string, d: FarmSettingDef): { def: RegExp; unit: string } {
  const exact = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  if (d.type === 'number') return { def: exact(String(d.default)), unit: d.unit };
  // Folders: null means the engine's own folder in the data folder, e.g. `<data>/outputs`.
  if (d.type === 'folder') return { def: /^`<data>\/[a-z]+`$/, unit: 'folder' };
  return { def: d.default === '' ? /^\(empty\b/ : exact(`\`${d.default}\``), unit: `text` };
}

export function mismatches(rows: Row[]): string[] {
  const out: string[] = [];
  const keys = rows.map((r) => r.key);
  for (const k of FARM_SETTING_KEYS)
    if (!keys.includes(k)) out.push(`${k}: no row (the code has it, default ${String(FARM_SETTINGS[k].default)})`);
  for (const r of rows) {
    if (keys.indexOf(r.key) !== keys.lastIndexOf(r.key)) out.push(`${r.key}: more than one row`);
    if (!(FARM_SETTING_KEYS as string[]).includes(r.key)) {
      out.push(`${r.key}: a row for a setting the code does not have`);
      continue;
    }
    const want = documented(r.key, FARM_SETTINGS[r.key as keyof typeof FARM_SETTINGS]);
    if (!want.def.test(r.def)) out.push(`${r.key}: the docs say default ${r.def}, the code ${want.def.source}`);
    if (r.unit !== want.unit) out.push(`${r.key}: the docs say unit ${r.unit}, the code ${want.unit}`);
  }
  return [...new Set(out)];
}

test("docs/settings.md's table has one row per farm setting, with the code's default and unit", () => {
  assert.deepEqual(mismatches(settingsRows(readRepoFile('docs/settings.md'))), []);
});

test('the settings check notices a missing row, an unknown row and a wrong default', () => {
  const rows = settingsRows(readRepoFile('docs/settings.md'));
  const planted = rows
    .filter((r) => r.key !== 'burst_after_s')
    .map((r) => (r.key === 'grace_s' ? { ...r, def: '61' } : r))
    .concat({ key: 'no_such_setting', def: '1', unit: 's' });
  assert.deepEqual(mismatches(planted).sort(), [
    'burst_after_s: no row (the code has it, default 600)',
    'grace_s: the docs say default 61, the code ^60$',
    'no_such_setting: a row for a setting the code does not have',
  ]);
});
