/**
 * Registers a fixture template under another name with another VRAM need or tags (an 8 GB and a
 * 20 GB keyframe, a video job that needs a tag), so a test says what it needs without a fixture file each.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Engine } from '../../electron/engine/engine.js';
import { FIXTURE_TEMPLATES } from './farm.js';

export async function addTemplateVariant(
  engine: Engine,
  base: string,
  over: { name: string; vram_gb?: number; tags?: string[]; timeout_s?: number },
): Promise<void> {
  const def = JSON.parse(readFileSync(resolve(FIXTURE_TEMPLATES, `${base}.json`), 'utf8')) as Record<string, unknown>;
  await engine.call('templates.add', { content: JSON.stringify({ ...def, ...over }), fileName: `${over.name}.json` });
}
