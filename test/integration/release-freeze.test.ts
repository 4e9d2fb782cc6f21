import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { EXIT_VERIFY_MISMATCH } from '../../electron/cli/release-command.js';
import { EXIT } from '../../electron/cli/exit-codes.js';
import { freezeRelease } from '../../electron/engine/freeze/freeze.js';
import { verifyManifest } from '../../electron/engine/freeze/verify.js';
import { ShotfarmError } from '../../shared/errors.js';
import { insertAsset, insertAttempt } from '../helpers/attempt-fixtures.js';
import { engineFor, importText, RESOURCES, type TestEngine } from '../helpers/engine.js';

const sample = readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8');
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

interface Rendered {
  path: string;
  sha256: string;
  assetId: string;
}

/** A job's output file on disk plus its ledger row (the shape the attempt runner writes). */
function render(t: TestEngine, jobId: string, n: number, rel: string, content: string, approved: boolean): Rendered {
  const path = join(t.dir, 'outputs', rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const att = insertAttempt(t.engine.db, {
    jobId,
    n,
    instance: 'gpu-01',
    gpu: 'RTX 4090',
    queuedAt: T0,
    dispatchedAt: T0,
    startedAt: T0,
    finishedAt: T0 + 5,
    outcome: 'completed',
  });
  insertAsset(t.engine.db, jobId, att, path, T0 + 5);
  t.engine.db.run(
    'UPDATE assets SET sha256 = ?, bytes = ?, approved = ? WHERE path = ?',
    sha256,
    Buffer.byteLength(content),
    approved ? 1 : 0,
    path,
  );
  const { id } = t.engine.db.one('SELECT id FROM assets WHERE path = ?', path) as { id: string };
  return { path, sha256, assetId: id };
}

/** The sample episode with three approved files and one that is not. */
async function episode(t: TestEngine): Promise<{ approved: Rendered[]; draft: Rendered }> {
  const { result } = await importText(t.engine, 'shot_list.json', sample);
  const job = (shot: string, stage: string): string => {
    const r = t.engine.db.one('SELECT id FROM jobs WHERE shot = ? AND stage = ?', shot, stage) as { id: string };
    return r.id;
  };
  assert.equal(result.imported, 4);
  const approved = [
    render(
      t,
      job('sh010', 'keyframe'),
      1,
      'Moonfall/ep101/sh010/keyframe/take-1/key_00001_.png',
      'keyframe sh010',
      true,
    ),
    render(
      t,
      job('sh010', 'motion'),
      1,
      'Moonfall/ep101/sh010/motion/take-1/motion_00001_.mp4',
      'motion sh010 '.repeat(1000),
      true,
    ),
    render(
      t,
      job('sh020', 'keyframe'),
      1,
      'Moonfall/ep101/sh020/keyframe/take-1/key_00001_.png',
      'keyframe sh020',
      true,
    ),
  ];
  const draft = render(
    t,
    job('sh030', 'keyframe'),
    1,
    'Moonfall/ep101/sh030/keyframe/take-1/key_00001_.png',
    'draft',
    false,
  );
  return { approved, draft };
}

const cli = runCli;

test('freeze writes a JSON and a CSV manifest of the approved files only, and verify passes on both', async (ctx) => {
  const t = await engineFor(ctx);
  const { approved, draft } = await episode(t);
  const outDir = join(t.dir, 'releases', 'release-ep101');
  const r = await freezeRelease(t.engine.db, t.clock, { project: 'Moonfall', episode: 'ep101', outDir });
  assert.equal(r.files, 3);
  assert.equal(r.root, join(t.dir, 'outputs', 'Moonfall', 'ep101'));

  const m = JSON.parse(readFileSync(r.manifestJson, 'utf8'));
  assert.equal(m.project, 'Moonfall');
  assert.equal(m.episode, 'ep101');
  assert.equal(m.created_at, new Date(t.clock.now()).toISOString());
  assert.deepEqual(
    m.files.map((f: { path: string }) => f.path),
    [
      'sh010/keyframe/take-1/key_00001_.png',
      'sh010/motion/take-1/motion_00001_.mp4',
      'sh020/keyframe/take-1/key_00001_.png',
    ],
  );
  const first = m.files[0];
  assert.deepEqual(
    [first.absolute_path, first.sha256, first.shot, first.stage, first.take, first.asset_id],
    [approved[0]!.path, approved[0]!.sha256, 'sh010', 'keyframe', 1, approved[0]!.assetId],
  );
  assert.ok(
    !m.files.some((f: { absolute_path: string }) => f.absolute_path === draft.path),
    'an unapproved file is not released',
  );
  assert.equal(
    m.total_bytes,
    m.files.reduce((n: number, f: { bytes: number }) => n + f.bytes, 0),
  );

  const csv = parse(readFileSync(r.manifestCsv, 'utf8'), { bom: true, columns: true }) as Record<string, string>[];
  assert.deepEqual(
    csv.map((row) => [row.path, row.sha256]),
    m.files.map((f: { path: string; sha256: string }) => [f.path, f.sha256]),
  );
  assert.deepEqual(readdirSync(outDir).sort(), ['manifest.csv', 'manifest.json'], 'no temp file is left behind');

  for (const manifest of [r.manifestJson, r.manifestCsv]) {
    const v = await verifyManifest(manifest);
    assert.deepEqual([v.checked, v.ok, v.missing, v.changed, v.unreadable], [3, 3, [], [], []], manifest);
  }
  const viaCli = await cli(t.dir, 'verify', r.manifestJson);
  assert.equal(viaCli.code, EXIT.ok);
  assert.match(viaCli.out, /3 file\(s\) of Moonfall \/ ep101 checked: 3 match, 0 missing, 0 changed\./);
});

test('verify names a tampered file with both hashes and exits 8', async (ctx) => {
  const t = await engineFor(ctx);
  const { approved } = await episode(t);
  const r = await freezeRelease(t.engine.db, t.clock, {
    project: 'Moonfall',
    episode: 'ep101',
    outDir: join(t.dir, 'releases', 'rel'),
  });
  const victim = approved[1]!;
  writeFileSync(victim.path, 'a different render');
  const v = await verifyManifest(r.manifestCsv);
  assert.equal(v.ok, 2);
  assert.deepEqual(v.changed, [
    {
      path: victim.path,
      expected: victim.sha256,
      actual: createHash('sha256').update('a different render').digest('hex'),
    },
  ]);

  const viaCli = await cli(t.dir, 'verify', r.manifestJson);
  assert.equal(viaCli.code, EXIT_VERIFY_MISMATCH);
  assert.equal(EXIT_VERIFY_MISMATCH, 8);
  assert.ok(viaCli.out.includes(`CHANGED     ${victim.path}`));
  assert.ok(viaCli.out.includes(victim.sha256));
  const json = JSON.parse((await cli(t.dir, '--json', 'verify', r.manifestJson)).out);
  assert.equal(json.passed, false);
});

test('verify reports a missing file and exits 8', async (ctx) => {
  const t = await engineFor(ctx);
  const { approved } = await episode(t);
  const r = await freezeRelease(t.engine.db, t.clock, {
    project: 'Moonfall',
    episode: 'ep101',
    outDir: join(t.dir, 'releases', 'rel'),
  });
  rmSync(approved[2]!.path);
  const v = await verifyManifest(r.manifestJson);
  assert.deepEqual([v.checked, v.ok, v.missing, v.changed], [3, 2, [approved[2]!.path], []]);
  const viaCli = await cli(t.dir, 'verify', r.manifestCsv);
  assert.equal(viaCli.code, 8);
  assert.ok(viaCli.out.includes(`MISSING     ${approved[2]!.path}`));
});

test('freeze refuses when an approved file is missing or changed since the ledger, names them, and writes nothing', async (ctx) => {
  const t = await engineFor(ctx);
  const { approved } = await episode(t);
  rmSync(approved[0]!.path);
  writeFileSync(approved[2]!.path, 'retouched by hand');
  const outDir = join(t.dir, 'releases', 'rel');
  await assert.rejects(
    freezeRelease(t.engine.db, t.clock, { project: 'Moonfall', episode: 'ep101', outDir }),
    (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.equal(err.code, 'conflict');
      assert.ok(err.message.includes(`missing: ${approved[0]!.path}`), err.message);
      assert.ok(err.message.includes(`changed since they were rendered: ${approved[2]!.path}`), err.message);
      assert.match(err.message, /Nothing was written/);
      return true;
    },
  );
  assert.equal(existsSync(outDir), false);
  const viaCli = await cli(t.dir, 'freeze', '--project', 'Moonfall', '--episode', 'ep101', '--out', outDir);
  assert.equal(viaCli.code, EXIT.conflict);
});

test('freeze with nothing approved says so clearly and writes nothing', async (ctx) => {
  const t = await engineFor(ctx);
  await episode(t);
  t.engine.db.run('UPDATE assets SET approved = 0');
  const outDir = join(t.dir, 'releases', 'rel');
  await assert.rejects(
    freezeRelease(t.engine.db, t.clock, { project: 'Moonfall', episode: 'ep101', outDir }),
    (err: unknown) =>
      err instanceof ShotfarmError &&
      err.code === 'conflict' &&
      /Nothing is approved in Moonfall \/ ep101 \(4 rendered file\(s\)\)/.test(err.message),
  );
  assert.equal(existsSync(outDir), false);
  const viaCli = await cli(t.dir, 'freeze', '--project', 'Moonfall', '--episode', 'ep101', '--out', outDir);
  assert.equal(viaCli.code, EXIT.conflict);
  assert.match(viaCli.err, /Nothing is approved/);
  assert.equal(existsSync(outDir), false);

  await assert.rejects(
    freezeRelease(t.engine.db, t.clock, { project: 'Moonfall', episode: 'ep999', outDir }),
    (err: unknown) =>
      err instanceof ShotfarmError &&
      err.code === 'not_found' &&
      /no jobs in project "Moonfall", episode "ep999"/.test(err.message),
  );
});

test('a freeze never overwrites an earlier manifest', async (ctx) => {
  const t = await engineFor(ctx);
  await episode(t);
  const outDir = join(t.dir, 'releases', 'rel');
  const viaCli = await cli(t.dir, 'freeze', '--project', 'Moonfall', '--episode', 'ep101', '--out', outDir);
  assert.equal(viaCli.code, EXIT.ok, viaCli.err);
  assert.match(viaCli.out, /Froze 3 approved file\(s\)/);
  const before = readFileSync(join(outDir, 'manifest.json'), 'utf8');
  t.clock.advance(60_000);
  await assert.rejects(
    freezeRelease(t.engine.db, t.clock, { project: 'Moonfall', episode: 'ep101', outDir }),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'conflict' && /never overwritten/.test(err.message),
  );
  assert.equal(readFileSync(join(outDir, 'manifest.json'), 'utf8'), before);
});

test('verify --root checks a delivery copied elsewhere by its relative paths', async (ctx) => {
  const t = await engineFor(ctx);
  await episode(t);
  const r = await freezeRelease(t.engine.db, t.clock, {
    project: 'Moonfall',
    episode: 'ep101',
    outDir: join(t.dir, 'releases', 'rel'),
  });
  const copy = join(t.dir, 'releases', 'vendor-drive');
  cpSync(r.root!, copy, { recursive: true });
  rmSync(join(t.dir, 'outputs'), { recursive: true });
  assert.equal((await verifyManifest(r.manifestCsv)).missing.length, 3, 'the originals are gone');
  const v = await verifyManifest(r.manifestCsv, { root: copy });
  assert.deepEqual([v.checked, v.ok], [3, 3]);
  assert.equal((await cli(t.dir, 'verify', r.manifestJson, '--root', copy)).code, EXIT.ok);
});

test('verify refuses a file that is not a release manifest', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const bogus = join(t.dir, 'manifest.json');
  writeFileSync(bogus, JSON.stringify({ format: 'something-else', files: [] }));
  await assert.rejects(
    verifyManifest(bogus),
    (err: unknown) =>
      err instanceof ShotfarmError &&
      err.code === 'bad_input' &&
      /is not a Shotfarm release manifest/.test(err.message),
  );
  const csv = join(t.dir, 'manifest.csv');
  writeFileSync(csv, 'path,absolute_path,sha256\nsh010/a.png,/x/a.png,not-a-hash\n');
  await assert.rejects(verifyManifest(csv), /row 2: sha256: must be a SHA-256/);
  await assert.rejects(
    verifyManifest(join(t.dir, 'nope.json')),
    (err: unknown) => err instanceof ShotfarmError && err.code === 'not_found',
  );
});
