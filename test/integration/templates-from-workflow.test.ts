import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ShotfarmError } from '../../shared/errors.js';
import { buildTemplateFile, readWorkflowText } from '../../shared/template-builder.js';
import { engineFor, RESOURCES, tableCounts } from '../helpers/engine.js';

const exported = JSON.stringify(
  (JSON.parse(readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8')) as { workflow: unknown }).workflow,
);

test('a raw API workflow with chosen inputs becomes a template: a dry run stores nothing, the real one is usable by an import', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const reading = readWorkflowText(exported);
  assert.equal(reading.kind, 'workflow');
  if (reading.kind !== 'workflow') return;
  const content = buildTemplateFile({
    name: 'plate-keyframe',
    stage: 'keyframe',
    parameters: { prompt: '6.text', seed: '3.seed' },
    workflow: reading.workflow,
  });

  const before = tableCounts(t.engine);
  const dry = await t.engine.call('templates.add', { content, fileName: 'plate-keyframe', dryRun: true });
  assert.deepEqual(
    [dry.id, dry.name, dry.version, dry.vramGb],
    [0, 'plate-keyframe', 1, 10],
    'the stage default VRAM, version 1, not stored',
  );
  assert.deepEqual(tableCounts(t.engine), before);

  const saved = await t.engine.call('templates.add', { content, fileName: 'plate-keyframe' });
  assert.ok(saved.id > 0);
  assert.deepEqual(saved.parameters.map((p) => p.name).sort(), ['prompt', 'seed']);
  const again = await t.engine.call('templates.add', { content, fileName: 'plate-keyframe', dryRun: true });
  assert.deepEqual([again.id, again.version], [saved.id, 1], 'unchanged: the same version');

  const list = JSON.stringify({
    project: 'Moonfall',
    episode: 'ep101',
    shots: [{ id: 'sh010', stage: 'keyframe', template: 'plate-keyframe', parameters: { prompt: 'dusk' } }],
  });
  const preview = await t.engine.call('import.preview', { fileName: 'list.json', content: list });
  assert.deepEqual(preview.counts, { new: 1, duplicate: 0, error: 0 });
});

test("a parameter naming an input the workflow lacks, or a UI-format file, is refused in the parser's words and stores nothing", async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const workflow = JSON.parse(exported) as Record<string, unknown>;
  const bad = buildTemplateFile({
    name: 'x',
    stage: 'keyframe',
    parameters: { prompt: '6.txt', seed: '99.seed' },
    workflow,
  });
  for (const dryRun of [true, false]) {
    await assert.rejects(
      t.engine.call('templates.add', { content: bad, fileName: 'x', dryRun }),
      (err: unknown) =>
        err instanceof ShotfarmError &&
        err.code === 'bad_input' &&
        /node 6 \(CLIPTextEncode\) has no input "txt"/.test(err.message) &&
        /node 99 is not in the workflow/.test(err.message),
    );
  }
  await assert.rejects(
    t.engine.call('templates.add', { content: '{"nodes": [], "links": []}', fileName: 'ui.json', dryRun: true }),
    /Export \(API\)/,
  );
  assert.deepEqual(await t.engine.call('templates.list', {}), []);
});
