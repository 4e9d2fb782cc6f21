#!/usr/bin/env node
// Launches the CLI. In a checkout (TypeScript sources and tsx present) it runs the sources, so it
// is never a stale build; an installed copy without them runs the compiled build in dist/.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const source = new URL('../electron/cli/entry.ts', import.meta.url);
const built = new URL('../dist/electron/cli/entry.js', import.meta.url);
let tsx = null;
try {
  createRequire(import.meta.url).resolve('tsx');
  tsx = await import('tsx/esm/api');
} catch {
  tsx = null;
}
if (existsSync(source) && tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  console.error('shotfarm: no build found; run `npm install` (and `npm run build`) in the Shotfarm folder.');
  process.exit(1);
}
