/**
 * The page drops from its selection the jobs a filter hides (renderer/lib/filter-match.ts) by the
 * same rules the engine lists them by (store/job-filter.ts): for a spread of filters both pick the
 * same jobs out of the same store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobFilter } from '../../shared/api.js';
import { matchesFilter } from '../../renderer/lib/filter-match.js';
import { engineFor } from '../helpers/engine.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { FIXTURE_TEMPLATES } from '../helpers/farm.js';
import { readFileSync } from 'node:fs';

test('the page and the engine agree on which jobs a filter shows', async (ctx) => {
  const { engine } = await engineFor(ctx, { templates: false });
  await engine.call('templates.add', {
    content: readFileSync(`${FIXTURE_TEMPLATES}txt2img.json`, 'utf8'),
    fileName: 'txt2img.json',
  });
  await addTemplateVariant(engine, 'txt2img', { name: 'tagged', tags: ['img2img'] });
  const lists = [
    { project: 'Moonfall', episode: 'ep101', shots: ['sq01_sh010', 'sq01_sh020', 'SQ02_SH0100', 'sh030'] },
    { project: 'Moonlight', episode: 'EP102', shots: ['sq01_sh010', 'sh_040', '_sh050'] },
    { project: 'moon%fall', episode: 'ep1', shots: ['a_b_c'] },
  ];
  for (const l of lists) {
    const content = JSON.stringify({
      project: l.project,
      episode: l.episode,
      shots: l.shots.map((id, i) => ({
        id,
        stage: i % 2 ? 'motion' : 'keyframe',
        template: i === 1 ? 'tagged' : 'txt2img',
        priority: i === 0 ? 'rush' : 'normal',
      })),
    });
    const p = await engine.call('import.preview', { fileName: 'l.json', content });
    // The last list imported by a person: the queue's "Mine" filter (importedBy) picks theirs.
    await engine.call(
      'import.commit',
      { previewId: p.previewId },
      l === lists[2] ? { kind: 'person', name: 'mira', role: 'operator' } : undefined,
    );
  }
  const all = (await engine.call('jobs.list', {})).rows;
  await engine.call('jobs.hold', { ids: [all[0]!.id, all[3]!.id] });
  await engine.call('jobs.cancel', { ids: [all[4]!.id] });
  const jobs = (await engine.call('jobs.list', {})).rows;
  const filters: JobFilter[] = [
    {},
    { states: ['queued'] },
    { states: ['held', 'cancelled'] },
    { project: 'Moonfall' },
    { project: 'moonfall' },
    { projectPrefix: 'moon' },
    { projectPrefix: 'MOONL' },
    { projectPrefix: 'moon%' },
    { projectPrefix: 'moon_' },
    { episodePrefix: 'ep10' },
    { episode: 'EP102' },
    { sequence: 'sq01' },
    { sequence: 'SQ02' },
    { sequence: 'sh' },
    { sequence: '' },
    { shotPrefix: 'sq01_' },
    { shotPrefix: '_' },
    { shot: 'sh030' },
    { stage: 'motion' },
    { priority: 'rush' },
    { search: 'SH01' },
    { search: 'held by' },
    { search: 'tagged' },
    { search: '%' },
    { search: 'ep1' },
    { blocked: false },
    { importedBy: 'mira' },
    { importedBy: 'local' },
    { importedBy: 'nobody' },
    { importedBy: 'mira', states: ['queued'] },
    { projectPrefix: 'moon', states: ['queued'], stage: 'keyframe', search: 'sh0' },
  ];
  for (const f of filters) {
    const engineIds = new Set((await engine.call('jobs.list', { filter: f })).rows.map((r) => r.id));
    const pageIds = new Set(jobs.filter((j) => matchesFilter(j, f)).map((j) => j.id));
    assert.deepEqual([...pageIds].sort(), [...engineIds].sort(), JSON.stringify(f));
  }
});
