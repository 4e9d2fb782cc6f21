/**
 * A store with N queued jobs, made once per bench process through the contract (import.preview +
 * import.commit in chunks, before any workstation is known so the preview skips node checks) and
 * then copied for each benchmark that needs a deep queue. Chunks keep the quadratic line lookup of
 * the JSON reader (see the import benchmark) out of this setup's time.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DB_FILE_NAME } from '../../../electron/engine/store/database.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { importThroughContract, openBenchEngine, shotListJson, type ShotSpec } from './bench-engine.js';

const made = new Map<string, string>();
let root: { path: string; cleanup: () => void } | null = null;

process.on('exit', () => root?.cleanup());

export async function queuedStore(rows: number, spec?: (i: number) => ShotSpec, key = 'default'): Promise<string> {
  const k = `${key}:${rows}`;
  const have = made.get(k);
  if (have && existsSync(have)) return have;
  root ??= makeTempDir('shotfarm-bench-fixtures-');
  const dir = join(root.path, k.replace(/[^a-z0-9]/gi, '_'));
  mkdirSync(dir, { recursive: true });
  const be = await openBenchEngine({ dataDir: dir });
  const chunk = 5_000;
  for (let from = 0; from < rows; from += chunk) {
    const n = Math.min(chunk, rows - from);
    const r = await importThroughContract(
      be.engine,
      shotListJson(n, { prefix: `q${from}-`, ...(spec ? { spec: (i) => spec(from + i) } : {}) }),
    );
    if (r.ids.length !== n) throw new Error(`fixture import: ${r.ids.length} of ${n} rows stored (${r.errors} errors)`);
  }
  be.engine.db.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
  await be.engine.close();
  const file = join(dir, DB_FILE_NAME);
  made.set(k, file);
  return file;
}

/** Like queuedStore, but built in a child process (keeps the setup's memory out of this process's RSS). */
export function queuedStoreInChild(rows: number): string {
  const k = `child:${rows}`;
  const have = made.get(k);
  if (have && existsSync(have)) return have;
  root ??= makeTempDir('shotfarm-bench-fixtures-');
  const file = join(root.path, `queued-${rows}.sqlite`);
  execFileSync(
    process.execPath,
    ['--import', 'tsx', new URL('./fixture-child.ts', import.meta.url).pathname, String(rows), file],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  made.set(k, file);
  return file;
}

/** A fresh data folder holding a copy of the fixture store. */
export function dataDirWith(storeFile: string): { path: string; cleanup: () => void } {
  const tmp = makeTempDir('shotfarm-bench-');
  copyFileSync(storeFile, join(tmp.path, DB_FILE_NAME));
  return tmp;
}
