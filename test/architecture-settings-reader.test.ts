/**
 * A farm setting has one reader outside electron/engine/settings/: `ctx.settings.get(key)` (the
 * SettingsPort, settings/setting-reader.ts), whose defaults come from the shared table alone. Code
 * elsewhere that reads a setting's row itself (a `farm.setting.` key), uses the table's defaults
 * (`FARM_SETTINGS`), or imports the module's own readers and entries fails here — that is how the
 * second reader (`storedNumber`, re-applying defaults beside the live config) came to be. The rule
 * is shown to fire on the planted violations in test/fixtures/settings-reader-violations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from './helpers/engine.js';
import { eachNode, lineOf, offences, offendingLines, plantedLines, type SourceRule } from './helpers/source-rules.js';

const SETTINGS_MODULE = 'electron/engine/settings/';
/** The settings module's own ways in: each reads rows or defaults for the one reader. */
const INTERNAL = new Set([
  'readFarmSettings',
  'defaultOf',
  'storedSettings',
  'SETTING_ENTRIES',
  'entryOf',
  'usedRoots',
  'rememberRoot',
  'storedNumber',
  'currentFolder',
]);

const settingReads: SourceRule = (_file, source) => {
  const out: { line: number; what: string }[] = [];
  eachNode(source, (n) => {
    if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n)) &&
      n.text.includes('farm.setting.')
    ) {
      out.push({ line: lineOf(source, n), what: 'reads a setting row itself (a farm.setting. key)' });
    } else if (ts.isIdentifier(n) && n.text === 'FARM_SETTINGS') {
      out.push({ line: lineOf(source, n), what: "uses the settings table's defaults (FARM_SETTINGS)" });
    } else if (ts.isImportSpecifier(n) && INTERNAL.has((n.propertyName ?? n.name).text)) {
      out.push({
        line: lineOf(source, n),
        what: `imports ${(n.propertyName ?? n.name).text}, the settings module's own`,
      });
    }
  });
  return out;
};

const inSettingsModule = (file: string): boolean => file.includes(SETTINGS_MODULE);

test('outside the settings module, a farm setting is read only through ctx.settings.get: no setting row, no table default', () => {
  // The renderer never reaches the store (its zone); it shows each setting's description and bounds from the table.
  assert.deepEqual(offences(REPO, 'electron', settingReads, inSettingsModule), []);
});

test('the settings-reader rule fires on each planted second reader, and lets the settings module and the one reader be', () => {
  const fixture = join(REPO, 'test/fixtures/settings-reader-violations');
  const planted = plantedLines(fixture);
  assert.ok(planted.length >= 5, 'the fixture plants its violations');
  assert.deepEqual(offendingLines(offences(fixture, 'electron', settingReads, inSettingsModule)), planted);
});
