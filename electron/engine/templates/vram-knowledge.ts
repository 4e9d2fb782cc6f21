/**
 * What the farm has learned of its templates' VRAM, kept in memory for the dispatcher: each
 * template version's measured runs and its pin, read from the store once and again a few seconds
 * later (another process — the CLI pinning, a second farm — may have written meanwhile). A run this
 * process measures is written through `write` (the scheduler's commit batch: with the attempt's own
 * end, not a commit and an fsync of its own per attempt) and, once stored, put at the head of the
 * rows in memory — as a read would return them, without reading up to 500 rows again after every
 * attempt. Deciding from them is scheduler/vram-need.ts, pure.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import type { StoredTemplate } from '../store/template-store.js';
import {
  addVramSample,
  LEARNED_ROWS,
  setVramPin,
  vramPinOf,
  vramSamplesOf,
  type LearnedRow,
  type VramSample,
} from '../store/vram-sample-store.js';
import type { VramPin } from '../../../shared/vram-need.js';
import { jobVram, needGbOn, type JobVram, type LearnRules } from '../scheduler/vram-need.js';
import { jobPixels } from './job-size.js';
import { type RunPlan, VramSamplingPlan } from './vram-sampling.js';

/** How long a template's rows are trusted before they are read again (ms). */
const FRESH_MS = 5_000;

export class VramKnowledge {
  private readonly byTemplate = new Map<number, { rows: LearnedRow[]; pin: VramPin; at: number }>();
  private readonly plan = new VramSamplingPlan();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly rules: () => LearnRules,
    /** Runs a write in a transaction (the commit batch's `add`); by default at once, on its own. */
    private readonly write: <T>(fn: () => T) => Promise<T> = async (fn) => fn(),
  ) {}

  private known(t: StoredTemplate): { rows: LearnedRow[]; pin: VramPin } {
    const now = this.clock.now();
    let k = this.byTemplate.get(t.id);
    if (!k || now - k.at > FRESH_MS) {
      k = { rows: vramSamplesOf(this.db, t.id), pin: vramPinOf(this.db, t.name), at: now };
      this.byTemplate.set(t.id, k);
    }
    return k;
  }

  /** The job's VRAM per GPU model: declared, learned, raised by out-of-memory runs; the pin applied. */
  jobVram(t: StoredTemplate, paramsJson: string): JobVram {
    const { rows, pin } = this.known(t);
    return jobVram(t.vramGb, jobPixels(t.workflow, t.parameters, paramsJson), rows, this.rules(), pin);
  }

  /** What the job holds of an instance's VRAM while it runs there (the registry's occupancy). */
  needOn(
    t: StoredTemplate,
    job: { stage: string; vram_gb: number; params_json: string },
    inst: Parameters<typeof needGbOn>[1],
  ): number {
    return needGbOn({ stage: job.stage, vramGb: job.vram_gb, vram: this.jobVram(t, job.params_json) }, inst);
  }

  /** A measured run (pools/comfy-lan/vram-sampler.ts): stored, and counted from the next decision after that. */
  async record(sample: VramSample): Promise<void> {
    await this.write(() => addVramSample(this.db, sample));
    const k = this.byTemplate.get(sample.templateId);
    // Newest first, as vramSamplesOf reads them; the FRESH_MS re-read still brings other processes' rows.
    if (k) {
      const { gpu, pixels, outcome, needGb } = sample;
      k.rows = [{ gpu, pixels, outcome, needGb }, ...k.rows].slice(0, LEARNED_ROWS);
    }
  }

  /**
   * Whether a run starting now has its VRAM read (templates/vram-sampling.ts); one not read comes
   * with its bucket's p95 need — what an out-of-memory end of it is taken to have used.
   */
  sampleRun(t: StoredTemplate, gpu: string | null, pixels: number): RunPlan {
    return this.plan.choose(this.known(t).rows, t.id, gpu, pixels, this.rules().learnAfter);
  }

  pin(name: string, pin: VramPin, actor: string): void {
    setVramPin(this.db, name, pin, actor, this.clock.now());
    this.byTemplate.clear();
  }
}
