/** The TypeScript sources under a folder, for the architecture tests that read the tree. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts/.tsx file under `dir`, skipping node_modules and any folder named in `skip`. */
export function sourceFiles(dir: string, skip: readonly string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || skip.includes(e.name) ? [] : sourceFiles(full, skip);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}
