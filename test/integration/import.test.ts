import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { jobId } from '../../electron/engine/ids.js';
import { ShotfarmError } from '../../shared/errors.js';
import { engineFor, importText, RESOURCES, tableCounts } from '../helpers/engine.js';
import { forEachStore } from '../helpers/test-store.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');
const kitsu = readFileSync(`${RESOURCES}samples/kitsu_shots.csv`, 'utf8');
const shotgrid = readFileSync(`${RESOURCES}samples/shotgrid_shots.csv`, 'utf8');

forEachStore((store) => {
  test(`a JSON shot list becomes one job per shot-stage, with deterministic UUIDv5 ids on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const { preview, result } = await importText(t.engine, 'shot_list.json', sample);
    assert.deepEqual(preview.counts, { new: 4, duplicate: 0, error: 0 });
    assert.equal(result.imported, 4);
    const expected = jobId({ project: 'Moonfall', episode: 'ep101', shot: 'sh010', stage: 'keyframe', take: 1 });
    assert.ok(result.jobIds.includes(expected));
    assert.match(expected, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const rush = (await t.engine.call('jobs.list', { sort: 'queue' })).rows[0];
    assert.equal(rush?.shot, 'sh020', 'the rush shot is first in queue order');
    assert.equal(rush?.priority, 'rush');
  });

  test(`importing the same list twice adds nothing and says so on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    await importText(t.engine, 'shot_list.json', sample);
    const before = tableCounts(t.engine);
    const { preview, result } = await importText(t.engine, 'shot_list.json', sample);
    assert.deepEqual(preview.counts, { new: 0, duplicate: 4, error: 0 });
    assert.ok(preview.rows.every((r) => r.warnings.some((w) => /already imported/.test(w))));
    assert.equal(result.imported, 0);
    assert.deepEqual(tableCounts(t.engine), before);
  });

  test(`a stage that depends on another waits, pending, with the reason shown on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    await importText(t.engine, 'shot_list.json', sample);
    const motion = (await t.engine.call('jobs.list', { filter: { stage: 'motion' } })).rows[0];
    assert.equal(motion?.state, 'pending');
    assert.equal(
      motion?.dependsOn,
      jobId({ project: 'Moonfall', episode: 'ep101', shot: 'sh010', stage: 'keyframe', take: 1 }),
    );
    assert.match(motion?.stateReason ?? '', /waiting for keyframe take 1 to complete/);
  });

  test(`a new take is a new job id with a new seed; a pinned seed is kept on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    await importText(t.engine, 'shot_list.json', sample);
    const jobs = (await t.engine.call('jobs.list', { filter: { stage: 'keyframe' } })).rows;
    const sh010 = jobs.find((j) => j.shot === 'sh010')!;
    const sh030 = jobs.find((j) => j.shot === 'sh030')!;
    for (const j of [sh010, sh030]) await t.engine.call('jobs.cancel', { ids: [j.id] });
    const [take2] = await t.engine.call('jobs.newTake', { ids: [sh010.id] });
    assert.equal(take2?.take, 2);
    assert.notEqual(take2?.id, sh010.id);
    assert.equal(
      take2?.id,
      jobId({ project: 'Moonfall', episode: 'ep101', shot: 'sh010', stage: 'keyframe', take: 2 }),
    );
    assert.notEqual(take2?.seed, sh010.seed);
    assert.equal(take2?.state, 'queued');
    const [pinned] = await t.engine.call('jobs.newTake', { ids: [sh030.id] });
    assert.equal(pinned?.seed, 1234, 'a seed given in the shot list is pinned');
  });

  test(`a Kitsu CSV (semicolons, Name/Nb Frames columns) maps by the header table on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const preview = await t.engine.call('import.preview', {
      fileName: 'kitsu.csv',
      content: kitsu,
      mapping: { project: 'Moonfall', stage: 'keyframe', template: 'keyframe-img2img' },
    });
    assert.equal(preview.format, 'csv');
    assert.equal(preview.mapping.shot, 'Name');
    assert.equal(preview.mapping.frames, 'Nb Frames');
    assert.deepEqual(
      preview.rows.map((r) => [r.episode, r.shot, r.status]),
      [
        ['ep101', 'sq01_sh040', 'new'],
        ['ep101', 'sq01_sh050', 'new'],
      ],
    );
  });

  test(`a ShotGrid CSV (Shot Code, Cut In/Out, quoted commas) maps by the header table on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const preview = await t.engine.call('import.preview', {
      fileName: 'sg.csv',
      content: shotgrid,
      mapping: { project: 'Moonfall', episode: 'ep102', stage: 'keyframe', template: 'keyframe-img2img' },
    });
    assert.equal(preview.mapping.shot, 'Shot Code');
    assert.equal(preview.mapping.frame_in, 'Cut In');
    assert.deepEqual(
      preview.rows.map((r) => r.shot),
      ['SQ02_SH0100', 'SQ02_SH0110'],
    );
    const result = await t.engine.call('import.commit', { previewId: preview.previewId });
    assert.equal(result.imported, 2);
    const params = t.engine.db.one("SELECT params_json FROM jobs WHERE shot = 'SQ02_SH0110'") as {
      params_json: string;
    };
    assert.equal(
      JSON.parse(params.params_json).prompt,
      'Close: Mira, "don\'t look back"',
      'Description feeds the prompt parameter',
    );
  });

  test(`a CSV with bad rows reports each row and stores only the valid ones, in one go on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const csv = [
      'Shot,Stage,Template,Priority,Take,param:steps,input:image',
      'sh100,keyframe,keyframe-img2img,rush,1,20,plates/sh010.png',
      'sh101,keyframe,no-such-template,normal,1,,',
      'sh102,keyframe,keyframe-img2img,urgent,1,,',
      'sh103,keyframe,keyframe-img2img,normal,0,,',
      'sh104,keyframe,keyframe-img2img,normal,1,,plates/missing.png',
      'sh100,keyframe,keyframe-img2img,low,1,,',
    ].join('\n');
    const preview = await t.engine.call('import.preview', {
      fileName: 'shots.csv',
      content: csv,
      baseDir: `${RESOURCES}samples`,
      mapping: { project: 'P', episode: 'E' },
    });
    const byShot = (row: number) => preview.rows[row - 1]!;
    assert.equal(byShot(1).status, 'new');
    assert.match(byShot(2).errors.join(), /template "no-such-template" is not registered/);
    assert.match(byShot(3).errors.join(), /priority "urgent" must be rush, high, normal or low/);
    assert.match(byShot(4).errors.join(), /take "0"/);
    assert.match(byShot(5).errors.join(), /input file "plates\/missing.png" .* does not exist/);
    assert.match(byShot(6).errors.join(), /same shot, stage and take as row 1/);
    assert.equal(byShot(4).line, 5);
    const result = await t.engine.call('import.commit', { previewId: preview.previewId });
    assert.deepEqual([result.imported, result.rejected], [1, 5]);
  });

  test(`a malformed JSON shot list gets an error with its line and the store is unchanged on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const before = tableCounts(t.engine);
    await assert.rejects(
      t.engine.call('import.preview', {
        fileName: 'shot_list.json',
        content: '{\n "project": "P",\n "episode": "E",\n "shots": [\n  {"id": "a",}\n ]\n}',
      }),
      (err: unknown) =>
        err instanceof ShotfarmError && err.code === 'bad_input' && /not valid JSON at line 5/.test(err.message),
    );
    await assert.rejects(
      t.engine.call('import.preview', { fileName: 'shot_list.json', content: '{"episode": "E", "shots": []}' }),
      /project/,
    );
    assert.deepEqual(tableCounts(t.engine), before);
  });

  test(`a CSV with an unclosed quote is refused whole, with the line on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const before = tableCounts(t.engine);
    await assert.rejects(
      t.engine.call('import.preview', { fileName: 'x.csv', content: 'Shot,Description\nsh1,"fine"\nsh2,"broken\n' }),
      /could not be read as CSV/,
    );
    await assert.rejects(
      t.engine.call('import.preview', { fileName: 'x.csv', content: 'Foo,Bar\n1,2\n' }),
      /no shot column/,
    );
    assert.deepEqual(tableCounts(t.engine), before);
  });

  test(`a JSON shot with an unknown parameter or stage dependency is a row error, not a crash on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const list = {
      project: 'P',
      episode: 'E',
      shots: [
        { id: 's1', stage: 'keyframe', template: 'keyframe-img2img', parameters: { cfg_scale: 3 } },
        { id: 's2', stages: [{ stage: 'motion', template: 'motion-i2v', depends_on: 'keyframe' }] },
        { id: 's3', stage: 'keyframe', template: 'keyframe-img2img', priority: 'asap' },
        { id: 's4', stage: 'keyframe', template: 'keyframe-img2img' },
      ],
    };
    const content = JSON.stringify(list, null, 2);
    const preview = await t.engine.call('import.preview', { fileName: 'l.json', content });
    assert.match(preview.rows[0]!.errors.join(), /parameter "cfg_scale" is not defined by template "keyframe-img2img"/);
    assert.match(preview.rows[1]!.errors.join(), /depends on stage "keyframe", which this shot does not have/);
    assert.match(preview.rows[2]!.errors.join(), /priority/);
    assert.equal(preview.rows[3]!.status, 'new');
    assert.match(
      content.split('\n')[preview.rows[2]!.line! - 1] ?? '',
      /"id": "s3"/,
      'the row points at its shot in the file',
    );
  });

  test(`a preview stores nothing; a used preview cannot be committed twice on ${store}`, async (ctx) => {
    const t = await engineFor(ctx, { store });
    const before = tableCounts(t.engine);
    const preview = await t.engine.call('import.preview', {
      fileName: 'shot_list.json',
      content: sample,
      baseDir: `${RESOURCES}samples`,
    });
    assert.deepEqual(tableCounts(t.engine), before);
    await t.engine.call('import.commit', { previewId: preview.previewId });
    await assert.rejects(
      t.engine.call('import.commit', { previewId: preview.previewId }),
      /expired or was already imported/,
    );
  });
});
