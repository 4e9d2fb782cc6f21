/**
 * A measured run's VRAM row rides the scheduler's commit batch (with the attempt's own end: one
 * fsync per tick, not one more per attempt — at 200 GPUs these single-row commits were the
 * largest write on the loop), and once stored it is counted from memory: the learned rows are not
 * read again from the store after every attempt, only every few seconds for what another process
 * wrote. Real SQLite file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommitBatch } from '../../electron/engine/store/commit-batch.js';
import type { StoredTemplate } from '../../electron/engine/store/template-store.js';
import { addVramSample, type VramSample } from '../../electron/engine/store/vram-sample-store.js';
import { VramKnowledge } from '../../electron/engine/templates/vram-knowledge.js';
import { engineFor } from '../helpers/engine.js';

const GPU = 'NVIDIA GeForce RTX 4090';
/** A template version of one 1024² latent, declared at 10 GB: only what learning reads of it. */
const latent = { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } };
const template = { id: 7, vramGb: 10, parameters: {}, workflow: { '5': latent } } as unknown as StoredTemplate;

function sample(attemptId: string, at: number): VramSample {
  return {
    attemptId,
    templateId: template.id,
    gpu: GPU,
    pixels: 1024 * 1024,
    outcome: 'ok',
    needGb: 6.5,
    addedGb: 6.5,
    peakGb: 7,
    baselineGb: 0.5,
    otherGb: 0,
    warm: false,
    reads: 5,
    at,
  };
}

test("a measured run is written in the tick's commit batch, and counted from memory once it is stored", async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const db = t.engine.db;
  let now = 1_000;
  const due: (() => void)[] = [];
  const batch = new CommitBatch(db, (fn) => void due.push(fn));
  const vram = new VramKnowledge(
    db,
    { now: () => now },
    () => ({ learnAfter: 3, marginPct: 10 }),
    (fn) => batch.add(fn),
  );
  const rows = () => (db.one('SELECT COUNT(*) AS n FROM vram_samples') as { n: number }).n;
  const samplesOn = () => vram.jobVram(template, '{}').byGpu[GPU]?.samples ?? 0;
  assert.equal(samplesOn(), 0, 'nothing learned yet (the rows are now in memory)');

  const stored = vram.record(sample('a1', now));
  assert.equal(rows(), 0, 'not written on its own: it waits for the batch');
  assert.equal(due.length, 1, 'the batch is due at the end of the tick');
  (due.shift() as () => void)();
  await stored;
  assert.equal(rows(), 1, 'stored with the batch');
  assert.equal(samplesOn(), 1, 'counted from the next decision on');

  // Another process stores a run meanwhile: this one sees it at the next read, a few seconds on;
  // its own runs are counted at once, from memory.
  addVramSample(db, sample('other-process', now));
  const second = vram.record(sample('a2', now));
  (due.shift() as () => void)();
  await second;
  assert.equal(samplesOn(), 2, 'its own second run counted at once');
  now += 60_000;
  assert.equal(samplesOn(), 3, "and the other process's run once the rows are read again");
});
