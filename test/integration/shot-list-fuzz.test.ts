/**
 * Issue [R], acceptance: a seeded fuzz of shot lists through a real engine. Each made-up list
 * (JSON and CSV; valid, malformed, hostile names, huge values, deep nesting, wrong types, BOMs,
 * mixed delimiters — test/helpers/shot-list-fuzz.ts) goes through import.preview, and through
 * import.commit when it has new rows. Whatever comes in: no crash and no stack trace, a refusal in
 * words naming the file (and the row), the store unchanged by anything refused, and every job
 * stored a valid one (portable names, a whole take, no dependency cycle).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../electron/engine/clock.js';
import { ShotfarmError } from '../../shared/errors.js';
import { portableNameProblem } from '../../shared/portable-name.js';
import { MAX_TAKE } from '../../shared/shot-list-schema.js';
import { engineFor, jobsDigest, RESOURCES, tableCounts } from '../helpers/engine.js';
import { fuzzCases } from '../helpers/shot-list-fuzz.js';

/** Another seed explores further (`SHOTFARM_FUZZ_SEED=7 SHOTFARM_FUZZ_CASES=5000 npm test -- shot-list-fuzz`); CI runs this one. */
const SEED = Number(process.env.SHOTFARM_FUZZ_SEED ?? 20261201);
const CASES = Number(process.env.SHOTFARM_FUZZ_CASES ?? 400);

test(`${CASES} fuzzed shot lists: no crash, clear refusals naming the file, the store unchanged when refused`, {
  timeout: 60_000,
}, async (ctx) => {
  const t = await engineFor(ctx);
  const tally = { refusedFiles: 0, errorRows: 0, storedJobs: 0, commits: 0 };
  const state = () => ({ counts: tableCounts(t.engine), jobs: jobsDigest(t.engine) });
  for (const c of fuzzCases(seededRandom(SEED), CASES)) {
    const label = `case ${c.n} (${c.kind}, seed ${SEED})`;
    const before = state();
    let preview;
    try {
      preview = await t.engine.call('import.preview', {
        fileName: c.fileName,
        content: c.content,
        baseDir: `${RESOURCES}samples`,
        ...(c.mapping ? { mapping: c.mapping } : {}),
      });
    } catch (err) {
      assert.ok(err instanceof ShotfarmError, `${label}: ${(err as Error).stack}`);
      assert.equal(err.code, 'bad_input', `${label}: ${err.message}`);
      assert.doesNotMatch(err.message, /\n\s+at /, `${label}: a stack trace in the message`);
      // A refusal of the mapping names the option; any other names the file.
      if (!err.message.startsWith('Invalid input for import.preview: mapping.'))
        assert.ok(err.message.includes(c.fileName), `${label}: ${err.message}`);
      assert.deepEqual(state(), before, `${label}: refused, yet the store changed`);
      tally.refusedFiles++;
      continue;
    }
    assert.deepEqual(state(), before, `${label}: a preview wrote`);
    for (const row of preview.rows) {
      assert.ok(['new', 'duplicate', 'error'].includes(row.status), label);
      if (row.status !== 'error') continue;
      tally.errorRows++;
      assert.ok(row.errors.length > 0, `${label}: an error row without a message`);
      for (const e of row.errors) assert.ok(e.startsWith(`${c.fileName}, row ${row.row}`), `${label}: ${e}`);
    }
    const result = await t.engine.call('import.commit', { previewId: preview.previewId });
    tally.commits++;
    assert.equal(result.imported, preview.counts.new, label);
    if (result.imported === 0) assert.deepEqual(state(), before, `${label}: nothing new, yet the store changed`);
    else assert.equal(tableCounts(t.engine).jobs, before.counts.jobs! + result.imported, label);
    tally.storedJobs += result.imported;
  }

  // Whatever got in is a job the farm can run: names fit a folder, takes are whole, no cycles.
  const jobs = t.engine.db.all('SELECT id, project, episode, shot, stage, take, depends_on FROM jobs') as {
    id: string;
    project: string;
    episode: string;
    shot: string;
    stage: string;
    take: number;
    depends_on: string | null;
  }[];
  const byId = new Map(jobs.map((j) => [j.id, j]));
  for (const j of jobs) {
    for (const [what, name] of Object.entries({
      project: j.project,
      episode: j.episode,
      shot: j.shot,
      stage: j.stage,
    })) {
      assert.equal(portableNameProblem(name, what), null, `${j.id}: ${what} ${JSON.stringify(name)}`);
    }
    assert.ok(Number.isInteger(j.take) && j.take >= 1 && j.take <= MAX_TAKE, `${j.id}: take ${j.take}`);
    const seen = new Set<string>();
    for (let at: string | null = j.id; at; at = byId.get(at)?.depends_on ?? null) {
      assert.ok(!seen.has(at), `${j.id}: its dependencies make a cycle`);
      seen.add(at);
    }
  }
  assert.ok(
    tally.storedJobs > 100 && tally.refusedFiles > 20 && tally.errorRows > 100,
    `the cases cover both sides: ${JSON.stringify(tally)}`,
  );
  const summary = `fuzzed ${CASES} shot lists (seed ${SEED}): ${tally.refusedFiles} refused whole, ${tally.errorRows} error rows, ${tally.storedJobs} jobs stored over ${tally.commits} commits`;
  ctx.diagnostic(summary);
  console.log(summary);
});
