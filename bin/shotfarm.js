#!/usr/bin/env node
// Launches the CLI: the compiled build when there is one (`npm run build`), otherwise the
// TypeScript sources through tsx, so a fresh checkout works without a build step.
import { existsSync } from 'node:fs';

const built = new URL('../dist/electron/cli/entry.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../electron/cli/entry.ts', import.meta.url).href);
}
