/**
 * Which runs have their VRAM read (templates/vram-sampling.ts with the sampler): every run of a
 * bucket until it has 4 × `vram_learn_after` good runs, then one in four — counted on the
 * workstation stand-in's /system_stats answers — while a bucket not learned yet is read at every
 * run, and a run not read that ends out of memory is still recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../electron/engine/comfy/responses.js';
import { VramSampler, type EndedAs, type SampledAttempt } from '../../electron/engine/pools/comfy-lan/vram-sampler.js';
import type { LearnedRow, VramSample } from '../../electron/engine/store/vram-sample-store.js';
import { jobPixels } from '../../electron/engine/templates/job-size.js';
import {
  READ_AT_ONCE,
  SAMPLE_ONE_IN,
  SHORT_ONE_IN,
  SHORT_STREAK,
  SPARE,
  TRUSTED_AFTER,
  VramSamplingPlan,
} from '../../electron/engine/templates/vram-sampling.js';
import { FakeTime } from '../helpers/fake-time.js';
import { latentTemplate } from '../helpers/stub-template.js';
import { GB, rtx4090Station } from '../helpers/gpu-snapshot.js';

const GPU = 'NVIDIA GeForce RTX 4090';
const LEARN_AFTER = 5;
const READS_PER_RUN = 6;
const flush = () => new Promise((r) => setImmediate(r));

const template = latentTemplate({ width: '5.width' });

const ok: EndedAs = {
  kind: 'finished',
  entry: { status: { statusStr: 'success', messages: [] } } as unknown as HistoryEntry,
};
const oom: EndedAs = {
  kind: 'failed',
  obs: {
    kind: 'execution_error',
    nodeId: '3',
    nodeType: 'KSampler',
    exceptionType: 'torch.OutOfMemoryError',
    exceptionMessage: 'CUDA out of memory. Tried to allocate 2.00 GiB',
  } as unknown as NonNullable<EndedAs['obs']>,
};

/** A farm of one workstation: the sampler planned as the engine plans it, over rows kept in memory. */
function farm(rows: LearnedRow[]) {
  const time = new FakeTime();
  const { client, reads } = rtx4090Station({ gb: 12.5 });
  const recorded: VramSample[] = [];
  const plan = new VramSamplingPlan();
  const sampler = new VramSampler({
    clock: time,
    timers: time,
    config: { vramSampleMs: 333 },
    record: (s) => {
      recorded.push(s);
      rows.unshift({ gpu: s.gpu, pixels: s.pixels, outcome: s.outcome, needGb: s.needGb });
    },
    log: () => undefined,
    plan: (t, gpu, pixels) => plan.choose(rows, t.id, gpu, pixels, LEARN_AFTER),
  });
  let n = 0;
  /** One run of a job of `width` × 1024, `intervals` read intervals long. */
  const run = async (width: number, end: EndedAs = ok, intervals = READS_PER_RUN): Promise<void> => {
    const attempt: SampledAttempt = {
      attemptId: `a${++n}`,
      job: { params_json: JSON.stringify({ width }) },
      template,
      client,
      instance: {
        row: { id: 'i1', gpu_name: GPU },
        lastOkProbe: { gpuName: GPU, vram: { totalBytes: 24 * GB, comfyBytes: 0, otherBytes: 0.4 * GB } },
        ourAtProbe: 0,
      },
    };
    sampler.started(attempt);
    for (let i = 0; i < intervals; i++) {
      time.advance(333);
      await flush();
    }
    sampler.ended(attempt, end);
  };
  return { run, reads, recorded };
}

function learnedRows(pixels: number, count: number): LearnedRow[] {
  return Array.from({ length: count }, () => ({ gpu: GPU, pixels, outcome: 'ok' as const, needGb: 12.5 }));
}

const pixelsAt = (width: number): number =>
  jobPixels(template.workflow, template.parameters, JSON.stringify({ width }));

test('a bucket learned with room to spare (4 × vram_learn_after good runs) is read at one run in four, not every run', async () => {
  const f = farm(learnedRows(pixelsAt(1024), TRUSTED_AFTER * LEARN_AFTER));
  const runs = 3 * SAMPLE_ONE_IN;
  for (let i = 0; i < runs; i++) await f.run(1024);
  assert.equal(f.recorded.length, runs / SAMPLE_ONE_IN, 'one measured run in four');
  assert.equal(f.reads(), (runs / SAMPLE_ONE_IN) * READS_PER_RUN, '/system_stats read only during the sampled runs');
});

test('a bucket not learned that far is read at every run, until it is', async () => {
  const target = TRUSTED_AFTER * LEARN_AFTER;
  // The 1024 bucket is learned; a 1536-wide job's bucket has only 5 runs (enough to be used, not to be trusted).
  const rows = [...learnedRows(pixelsAt(1024), target), ...learnedRows(pixelsAt(1536), LEARN_AFTER)];
  const f = farm(rows);
  const untilTrusted = target - LEARN_AFTER;
  for (let i = 0; i < untilTrusted; i++) await f.run(1536);
  assert.equal(f.recorded.length, untilTrusted, 'every run measured');
  assert.equal(f.reads(), untilTrusted * READS_PER_RUN);
  for (let i = 0; i < SAMPLE_ONE_IN; i++) await f.run(1536);
  assert.equal(f.recorded.length, untilTrusted + 1, 'then one in four');
});

test('a run that is not read and ends out of memory is still recorded, as a read one would be', async () => {
  const f = farm(learnedRows(pixelsAt(1024), TRUSTED_AFTER * LEARN_AFTER));
  await f.run(1024, oom); // the first run of a trusted bucket is not read
  assert.equal(f.reads(), 0);
  assert.equal(f.recorded.length, 1);
  const r = f.recorded[0]!;
  assert.equal(r.outcome, 'oom');
  assert.equal(r.reads, 0);
  // Its bucket's p95 (12.5 GB) filled over half of what ComfyUI could use (23.6 GB): needed more than all of it less the reserve.
  assert.ok(Math.abs(r.needGb - (24 - 0.4 - 0.5)) < 1e-6, `needGb ${r.needGb}`);
});

test("a farm's first wave reads only as many runs of a new bucket as it still needs good runs (and a spare two), not every GPU", () => {
  const plan = new VramSamplingPlan();
  const needed = TRUSTED_AFTER * LEARN_AFTER;
  const starts = Array.from({ length: 200 }, () => plan.choose([], 1, GPU, pixelsAt(1024), LEARN_AFTER));
  const read = starts.filter((p) => p.sample);
  assert.equal(read.length, needed + SPARE, 'read at once: the good runs still needed plus the spare');
  for (const p of starts.filter((p) => !p.sample))
    assert.equal(p.knownGb, 0, 'not read: the (empty) bucket p95 stands in');
  // A run that ends gives its place to the next start; another bucket has places of its own.
  assert.equal(plan.choose([], 1, GPU, pixelsAt(1024), LEARN_AFTER).sample, false);
  read[0]!.done?.('other');
  assert.equal(plan.choose([], 1, GPU, pixelsAt(1024), LEARN_AFTER).sample, true);
  assert.equal(plan.choose([], 1, GPU, pixelsAt(1536), LEARN_AFTER).sample, true);
});

test('once a bucket is trusted, at most READ_AT_ONCE of its runs are read at a time, however many GPUs run it', () => {
  const plan = new VramSamplingPlan();
  const rows = learnedRows(pixelsAt(1024), TRUSTED_AFTER * LEARN_AFTER);
  const starts = Array.from({ length: 200 }, () => plan.choose(rows, 1, GPU, pixelsAt(1024), LEARN_AFTER));
  assert.equal(starts.filter((p) => p.sample).length, READ_AT_ONCE, `one in ${SAMPLE_ONE_IN} would be 50`);
});

test("a run's end gives its place back once, however often its end is reported", () => {
  const plan = new VramSamplingPlan();
  const rows = learnedRows(pixelsAt(1024), TRUSTED_AFTER * LEARN_AFTER - 1); // learning: one good run and the spare to go
  const places = 1 + SPARE;
  const read = Array.from({ length: 10 }, () => plan.choose(rows, 1, GPU, pixelsAt(1024), LEARN_AFTER)).filter(
    (p) => p.sample,
  );
  assert.equal(read.length, places);
  read[0]!.done?.('other');
  read[0]!.done?.('other');
  const again = Array.from({ length: 10 }, () => plan.choose(rows, 1, GPU, pixelsAt(1024), LEARN_AFTER));
  assert.equal(again.filter((p) => p.sample).length, 1, 'one place given back, not two');
});

test('the sampler gives a read run’s place back when it ends: a bucket whose runs never count keeps being read', async () => {
  // Every run stopped (no outcome): nothing is learned, so the bucket stays new and each run must be read.
  const f = farm([]);
  const runs = TRUSTED_AFTER * LEARN_AFTER + SPARE + 5;
  for (let i = 0; i < runs; i++) await f.run(1024, { kind: 'stopped' });
  assert.equal(f.recorded.length, 0);
  assert.equal(f.reads(), runs * READS_PER_RUN, 'every run read: the places came back');
});

test('a bucket whose runs keep ending too short to be counted is read one run in 16, until one is counted again', async () => {
  const f = farm([]);
  // Prompts of one read interval: read once each, never the three a good run needs.
  for (let i = 0; i < SHORT_STREAK; i++) await f.run(1024, ok, 1);
  assert.equal(f.reads(), SHORT_STREAK, 'the first runs are read');
  for (let i = 0; i < 2 * SHORT_ONE_IN; i++) await f.run(1024, ok, 1);
  assert.equal(f.reads(), SHORT_STREAK + 2, `then one in ${SHORT_ONE_IN}`);
  assert.equal(f.recorded.length, 0);
  // Its runs grow longer: the next one read is counted, and the bucket is read at every run again.
  for (let i = 0; i < SHORT_ONE_IN; i++) await f.run(1024);
  assert.equal(f.recorded.length, 1);
  const before = f.reads();
  for (let i = 0; i < 3; i++) await f.run(1024);
  assert.equal(f.recorded.length, 4, 'every run read and counted again');
  assert.equal(f.reads(), before + 3 * READS_PER_RUN);
});
