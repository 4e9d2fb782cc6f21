/**
 * A job's view is assembled in one place, electron/engine/views/job-views.ts, and given to the
 * announcer and the handlers alike; templates are cached by one TemplateCache the engine builds once
 * and passes through its context. A second assembly of the views (a call of `viewsWithWaits` or
 * `withLive` elsewhere) or a second cache (`new TemplateCache(` outside engine.ts) fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from './helpers/engine.js';
import { sourceFiles } from './helpers/source-files.js';

/** Files under electron/ that call `name(` outside its own declaration, as repo-relative paths. */
function callers(pattern: RegExp): string[] {
  return sourceFiles(join(REPO, 'electron'))
    .filter((f) =>
      [...readFileSync(f, 'utf8').matchAll(pattern)].some(
        (m) => !/\bfunction\s+$/.test(m.input.slice(Math.max(0, m.index - 20), m.index)),
      ),
    )
    .map((f) => relative(REPO, f))
    .sort();
}

export function viewAssemblers(): string[] {
  return [...new Set([...callers(/\bviewsWithWaits\(/g), ...callers(/\bwithLive\(/g)])].sort();
}

test("a job's view is assembled only by the one builder in engine/views/", () => {
  assert.deepEqual(viewAssemblers(), ['electron/engine/views/job-views.ts']);
});

test('the engine builds the one template cache; everything else is given it', () => {
  assert.deepEqual(callers(/\bnew TemplateCache\(/g), ['electron/engine/engine.ts']);
});
