/**
 * What the Studio's job drawer and queue filters ask of the engine: a job's detail (shot path,
 * template version, the prompt's resolved parameters built by the attempt's own code, inputs as
 * sent, history), prefix filters and facet counts, and the undo of cancels and of order changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ShotfarmError } from '../../shared/errors.js';
import { describeOrderChange } from '../../shared/job-detail.js';
import { jobPrompt } from '../../electron/engine/templates/job-prompt.js';
import { jobRow } from '../../electron/engine/store/job-store.js';
import { templateById } from '../../electron/engine/store/template-store.js';
import { engineFor, importText, jobsDigest, RESOURCES } from '../helpers/engine.js';

const sampleList = () => readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');

async function sampleEngine(ctx: Parameters<typeof engineFor>[0]) {
  const t = await engineFor(ctx);
  const { result } = await importText(t.engine, 'shot_list.json', sampleList());
  const rows = (await t.engine.call('jobs.list', {})).rows;
  const byShot = (shot: string, stage = 'keyframe') =>
    rows.find((r) => r.shot === shot && r.stage === stage)?.id as string;
  return { ...t, ids: result.jobIds, byShot };
}

test('a job detail shows its path, template version, queue place and the prompt an attempt would post', async (ctx) => {
  const { engine, byShot } = await sampleEngine(ctx);
  const id = byShot('sh030');
  const d = await engine.call('jobs.detail', { id });
  assert.deepEqual(d.path, {
    project: 'Moonfall',
    episode: 'ep101',
    sequence: null,
    shot: 'sh030',
    stage: 'keyframe',
    take: 1,
  });
  assert.equal(d.template.name, 'keyframe-img2img');
  assert.equal(d.template.version, 1);
  assert.equal(d.template.latestVersion, 1);
  assert.equal(d.seed, 1234);
  assert.equal(d.seedPinned, true);
  // sh020 is rush, so it goes first; sh010 and sh030 follow in import order.
  assert.equal(d.queuePosition, 3);
  assert.equal((await engine.call('jobs.detail', { id: byShot('sh020') })).queuePosition, 1);

  const byName = Object.fromEntries(d.resolved.map((p) => [p.name, p]));
  assert.deepEqual(byName.prompt, {
    name: 'prompt',
    path: '6.text',
    value: 'wide shot of the valley under moonlight',
    source: 'shot',
  });
  assert.equal(byName.seed?.value, 1234);
  assert.equal(byName.steps?.source, 'template');
  assert.equal(byName.steps?.value, 24);
  assert.equal(byName.image?.source, 'input');
  assert.equal(byName.image?.value, `shotfarm/${id}/sh030.png`);
  assert.deepEqual(
    d.inputs.map((i) => [i.param, i.sentAs]),
    [['image', `shotfarm/${id}/sh030.png`]],
  );
  assert.match(d.inputs[0]?.file ?? '', /plates\/sh030\.png$/);

  // The workflow is what the attempt's own code builds, with the upload's name on the workstation.
  const row = jobRow(engine.db, id)!;
  const expected = jobPrompt(row, templateById(engine.db, row.template_id)!, { image: `shotfarm/${id}/sh030.png` });
  assert.deepEqual(d.workflow, expected);
  assert.equal(d.workflow?.['3']?.inputs.seed, 1234);
  assert.equal(d.problem, null);
  assert.deepEqual(
    d.events.map((e) => (e.kind === 'state' ? [e.from, e.to] : e.why)),
    [[null, 'queued']],
  );
  assert.deepEqual(d.outputs, []);

  // A motion stage waiting for its keyframe names the dependency and the input it will get.
  const motion = await engine.call('jobs.detail', { id: byShot('sh010', 'motion') });
  assert.deepEqual(motion.dependency, { id: byShot('sh010'), stage: 'keyframe', take: 1, state: 'queued' });
  assert.equal(motion.queuePosition, null);
  assert.equal(motion.inputs.length, 1);
  assert.equal(motion.inputs[0]?.sentAs, '');

  await assert.rejects(
    engine.call('jobs.detail', { id: '00000000-0000-4000-8000-000000000000' }),
    (e: unknown) => e instanceof ShotfarmError && e.code === 'not_found',
  );
});

test('filters match project, episode and shot by prefix (ignoring case) and a sequence exactly; facets count what matches', async (ctx) => {
  const { engine } = await engineFor(ctx);
  await importText(engine, 'shot_list.json', sampleList());
  const csv = readFileSync(`${RESOURCES}samples/kitsu_shots.csv`, 'utf8');
  const kitsu = await engine.call('import.preview', {
    fileName: 'kitsu_shots.csv',
    content: csv,
    baseDir: `${RESOURCES}samples`,
    mapping: { project: 'Moonlight', stage: 'keyframe', template: 'keyframe-img2img' },
  });
  await engine.call('import.commit', { previewId: kitsu.previewId });

  const shots = async (filter: object) =>
    (await engine.call('jobs.list', { filter })).rows.map((r) => `${r.project}/${r.shot}/${r.stage}`).sort();
  assert.equal((await shots({ projectPrefix: 'moon' })).length, 6);
  assert.deepEqual(await shots({ projectPrefix: 'Moonl' }), [
    'Moonlight/sq01_sh040/keyframe',
    'Moonlight/sq01_sh050/keyframe',
  ]);
  assert.deepEqual(await shots({ project: 'Moon' }), [], 'project stays exact');
  assert.deepEqual(await shots({ sequence: 'sq01' }), [
    'Moonlight/sq01_sh040/keyframe',
    'Moonlight/sq01_sh050/keyframe',
  ]);
  assert.deepEqual(await shots({ sequence: 'sq0' }), [], 'a sequence is exact');
  assert.deepEqual(await shots({ shotPrefix: 'sh0', episodePrefix: 'EP1', stage: 'motion' }), [
    'Moonfall/sh010/motion',
  ]);
  assert.deepEqual(await shots({ projectPrefix: '%' }), [], "the operator's % is a character, not a wildcard");

  const projects = await engine.call('jobs.facets', { by: 'project' });
  assert.deepEqual(
    projects.values.map((v) => [v.value, v.count]),
    [
      ['Moonfall', 4],
      ['Moonlight', 2],
    ],
  );
  assert.equal(projects.more, false);
  const suggested = await engine.call('jobs.facets', { by: 'project', prefix: 'moonl' });
  assert.deepEqual(
    suggested.values.map((v) => v.value),
    ['Moonlight'],
  );
  const sequences = await engine.call('jobs.facets', {
    by: 'sequence',
    filter: { project: 'Moonlight', episode: 'ep101' },
  });
  assert.deepEqual(
    sequences.values.map((v) => [v.value, v.count]),
    [['sq01', 2]],
  );
  const none = await engine.call('jobs.facets', { by: 'sequence', filter: { project: 'Moonfall' } });
  assert.deepEqual(
    none.values.map((v) => [v.value, v.count]),
    [['', 4]],
    'shots without a sequence count under ""',
  );
  const limited = await engine.call('jobs.facets', { by: 'shot', limit: 2 });
  assert.equal(limited.values.length, 2);
  assert.equal(limited.more, true);
});

test('undo of a cancel puts waiting jobs back where they were, and refuses jobs that ran or changed since', async (ctx) => {
  const { engine, byShot } = await sampleEngine(ctx);
  const [queued, held, motion] = [byShot('sh020'), byShot('sh030'), byShot('sh010', 'motion')];
  await engine.call('jobs.hold', { ids: [held] });
  await engine.call('jobs.cancel', { ids: [queued, held, motion] });
  const back = await engine.call('jobs.uncancel', { ids: [queued, held, motion] });
  assert.deepEqual(Object.fromEntries(back.map((v) => [v.id, v.state])), {
    [queued]: 'queued',
    [held]: 'held',
    [motion]: 'pending',
  });
  assert.equal(back.find((v) => v.id === queued)?.stateReason, 'cancel undone by an operator');
  assert.equal(back.find((v) => v.id === queued)?.finishedAt, null);

  // Cancelled, then retried and cancelled again from queued: the last change is that cancel, so it may be undone…
  await engine.call('jobs.cancel', { ids: [queued] });
  await engine.call('jobs.retry', { ids: [queued] });
  await engine.call('jobs.cancel', { ids: [queued] });
  assert.equal((await engine.call('jobs.uncancel', { ids: [queued] }))[0]?.state, 'queued');
  // …but a job changed after its cancel (retried: queued again) is not undone; and a refusal changes nothing.
  await engine.call('jobs.cancel', { ids: [queued] });
  await engine.call('jobs.retry', { ids: [queued] });
  const before = jobsDigest(engine);
  await assert.rejects(
    engine.call('jobs.uncancel', { ids: [queued] }),
    (e: unknown) => e instanceof ShotfarmError && e.code === 'conflict' && /is queued/.test(e.message),
  );
  assert.equal(jobsDigest(engine), before);
});

test('restoring an order gives jobs back the priority and rank they had before a bump and a move to top', async (ctx) => {
  const { engine, byShot } = await sampleEngine(ctx);
  const ids = [byShot('sh010'), byShot('sh030')];
  const was = (await engine.call('jobs.list', {})).rows
    .filter((r) => ids.includes(r.id))
    .map((r) => ({ id: r.id, priority: r.priority, rank: r.rank }));
  await engine.call('jobs.bump', { ids, priority: 'rush' });
  await engine.call('jobs.moveToTop', { ids });
  assert.deepEqual(
    (await engine.call('jobs.list', {})).rows.slice(0, 2).map((r) => r.id),
    ids,
  );
  const restored = await engine.call('jobs.restoreOrder', { jobs: was });
  assert.deepEqual(
    restored.map((r) => ({ id: r.id, priority: r.priority, rank: r.rank })),
    was,
  );
  assert.equal((await engine.call('jobs.list', {})).rows[0]?.id, byShot('sh020'), 'the rush shot is first again');
});

test('a bump, a move to top and their undo are history rows with who made them, newest first, and change no state', async (ctx) => {
  const { engine, byShot } = await sampleEngine(ctx);
  const id = byShot('sh010');
  const was = (await engine.call('jobs.list', {})).rows
    .filter((r) => r.id === id)
    .map((r) => ({ id: r.id, priority: r.priority, rank: r.rank }));
  await engine.call('jobs.bump', { ids: [id], priority: 'rush' });
  await engine.call('jobs.moveToTop', { ids: [id] });
  await engine.call('jobs.restoreOrder', { jobs: was });
  const d = await engine.call('jobs.detail', { id });
  const lines = d.events.map((e) =>
    e.kind === 'state' ? `${e.from ?? '-'}→${e.to}` : `${e.why} ${e.fromPriority}→${e.toPriority} by ${e.actor}`,
  );
  assert.deepEqual(lines, [
    'undo rush→normal by local',
    'top rush→rush by local',
    'bump normal→rush by local',
    '-→queued',
  ]);
  const words = d.events.flatMap((e) => (e.kind === 'order' ? [describeOrderChange(e)] : []));
  assert.deepEqual(words, [
    'order restored: priority rush → normal',
    'moved to the top of rush',
    'priority normal → rush',
  ]);
  // Still one state change: the counters and "queued since" read job_events, which an order change does not touch.
  assert.equal(d.events.filter((e) => e.kind === 'state').length, 1);
});
