/**
 * The CLI is a host like the server and the desktop app: it reaches the engine through its contract
 * (`engine.call`), never through the engine's connection (`engine.db`) or its store, hooks,
 * storage, freeze, health or other inner modules. The engine modules a CLI file may import are
 * listed below, each with its reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './helpers/engine.js';

const ENGINE_MODULES_ALLOWED: Readonly<Record<string, string>> = {
  'engine.js': 'the engine itself: its call() is the contract',
  'data-dir.js': 'where the data folder is when --data is not given',
  'intake/text-check.js': 'a shot list larger than the contract takes is refused before it is read whole',
  'scheduler/scheduler.js':
    '`run` is the farm in this process (type only: it asks whether the farm can still progress)',
  'scheduler/farm-progress.js': "the type of that answer (`run --until-idle`'s stuck reasons)",
  'lock/engine-lock.js':
    "whether an engine runs the data folder's farm now: then commands go through it, not to the database",
  'lock/lock-record.js': 'who that engine is and how it is reached (its control address), in the words a refusal uses',
};

/** What a CLI file does that bypasses the contract. */
export function bypasses(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((l, i) => {
    if (/\.db\b/.test(l)) out.push(`${file}:${i + 1} uses the engine's database connection`);
    for (const m of l.matchAll(/from\s+['"]\.\.\/engine\/([^'"]+)['"]/g)) {
      const mod = m[1] as string;
      if (!(mod in ENGINE_MODULES_ALLOWED))
        out.push(`${file}:${i + 1} imports engine/${mod} instead of calling the contract`);
    }
  });
  return out;
}

test('the CLI reaches the engine only through its contract (no engine.db, no store/hooks/storage modules)', () => {
  const dir = join(REPO, 'electron/cli');
  const offenders = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => bypasses(`electron/cli/${f}`, readFileSync(join(dir, f), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the CLI contract check notices engine.db, a store import and a hooks import', () => {
  const sample = [
    "import { listDeliveries } from '../engine/store/delivery-store.js';",
    "import { getHooks } from '../engine/hooks/hook-settings.js';",
    "import { Engine } from '../engine/engine.js';",
    'const rows = listInstanceRows(engine.db);',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: planted source text, a template literal as a command would write it.
    'io.out(`Farm running on ${engine.dbFile}.`);',
  ].join('\n');
  assert.deepEqual(bypasses('electron/cli/x.ts', sample), [
    'electron/cli/x.ts:1 imports engine/store/delivery-store.js instead of calling the contract',
    'electron/cli/x.ts:2 imports engine/hooks/hook-settings.js instead of calling the contract',
    "electron/cli/x.ts:4 uses the engine's database connection",
  ]);
});
