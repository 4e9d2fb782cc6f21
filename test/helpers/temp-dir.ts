/** A fresh temp folder per test, removed afterwards (tests never share state on disk). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export function makeTempDir(prefix = 'shotfarm-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temp folder for one test, removed when the test ends. */
export function tempDirFor(ctx: TestContext, prefix?: string): string {
  const dir = makeTempDir(prefix);
  ctx.after(dir.cleanup);
  return dir.path;
}
