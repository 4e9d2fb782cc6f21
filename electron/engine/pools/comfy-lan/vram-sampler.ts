/**
 * Measures what each LAN attempt needs of its GPU (issue 28 item 1). While a prompt of ours runs on
 * a workstation, its /system_stats is read a few times a second (`vramSampleMs`, ~3 Hz; one read at
 * a time per workstation, none while nothing of ours runs there). The idle baseline is the
 * workstation's last health probe taken while nothing of ours ran there (no read of its own; a
 * prompt started right behind another of ours keeps the baseline from before the first). At the
 * attempt's end one row is stored:
 * the peak of ComfyUI's live memory (protocol §7 `active`) above that baseline, the other processes'
 * share apart, the GPU model and the template version; an out-of-memory failure stores what it was
 * known to need more than (all ComfyUI could use there, when the reads saw it fill the GPU).
 *
 * Why a warm run counts its whole peak: its model was already loaded at the baseline, so the part
 * "added" is only its activations. A cold run (another model of ours was loaded before) counts the
 * peak above the lower of the baseline and the lowest read while it ran (ComfyUI unloads a model to
 * make room). Other models left resident count as ours: the learned need errs high, never low.
 * A good run read fewer than three times is not counted (no row); an OOM always is.
 *
 * Not every run is read (`plan`, templates/vram-sampling.ts): once a bucket's learned need is
 * trusted with room to spare, one run in four. A run not read still keeps the station's baseline and
 * loaded model up to date (both come from probes and starts, not reads) and, out of memory, is
 * recorded as a read one would be, its bucket's p95 need standing in for the peak it was not seen at.
 */
import type { Clock, Timers } from '../../clock.js';
import type { ComfyClient } from '../../comfy/client.js';
import { settle } from '../../comfy/observation.js';
import { vramBreakdown, type VramBreakdown } from '../../comfy/vram.js';
import type { StoredTemplate } from '../../store/template-store.js';
import type { VramSample } from '../../store/vram-sample-store.js';
import { checkpointOfJob } from '../../templates/checkpoint.js';
import { jobPixels } from '../../templates/job-size.js';
import type { RunPlan } from '../../templates/vram-sampling.js';
import type { HistoryEntry } from '../../comfy/responses.js';
import { isOutOfMemory, type AttemptObservation } from './failure.js';
import { terminalMessage } from './prompt-watch.js';

const GB = 1024 ** 3;

interface ProbeVram {
  totalBytes: number;
  comfyBytes: number;
  otherBytes: number;
}
/** What ComfyUI keeps free on the device (`--reserve-vram`, ≈0.4–0.7 GB): an OOM needed more than usable minus this. */
const RESERVE_GB = 0.5;
/** An OOM counts as the GPU being too small once our prompt was seen holding this share of what ComfyUI could use. */
const CONFIRMED_SHARE = 0.5;
/**
 * A good run counts only when read this often: a read or two may fall on the model load before the
 * sampler's activations and understate the need (a real render is read dozens of times).
 */
const MIN_READS = 3;
/** One read's own deadline: a slow answer is skipped, never waited for. */
const READ_TIMEOUT_MS = 2_000;

/** How the attempt ended, as far as the sampler cares (attempt-scope.ts's Outcome is one). */
export interface EndedAs {
  kind: string;
  obs?: AttemptObservation;
  /** A prompt the server ended: its history entry says whether it succeeded or how it failed. */
  entry?: HistoryEntry;
}

/** 'ok', 'oom' or null (any other end: nothing learned from it). */
function endOf(outcome: EndedAs | null): 'ok' | 'oom' | null {
  if (!outcome) return null;
  if (outcome.kind === 'failed' && outcome.obs?.kind === 'execution_error')
    return isOutOfMemory(outcome.obs.exceptionType, outcome.obs.exceptionMessage) ? 'oom' : null;
  if (outcome.kind !== 'finished' || !outcome.entry) return null;
  const terminal = terminalMessage(outcome.entry);
  const status = outcome.entry.status;
  if (status?.statusStr === 'success' || (status === null && terminal === null)) return 'ok';
  const d = terminal?.type === 'execution_error' ? terminal.data : null;
  return d && isOutOfMemory(String(d['exception_type'] ?? ''), String(d['exception_message'] ?? '')) ? 'oom' : null;
}

/** What the sampler needs of an attempt (the runner is one). */
export interface SampledAttempt {
  readonly attemptId: string;
  readonly job: { readonly params_json: string };
  readonly template: StoredTemplate;
  readonly instance: {
    readonly row: { readonly id: string; readonly gpu_name: string | null };
    /** The last answered health probe, and how many prompts of ours were on the server when it was asked. */
    readonly lastOkProbe: { readonly gpuName: string | null; readonly vram: ProbeVram | null } | null;
    readonly ourAtProbe: number;
  };
  readonly client: ComfyClient;
}

export interface VramSamplerDeps {
  clock: Clock;
  timers: Timers;
  config: { readonly vramSampleMs: number };
  /** Stores a measured run; may be asynchronous (the commit batch): a failure is logged, never the attempt's. */
  record: (s: VramSample) => Promise<void> | void;
  log: (m: string) => void;
  /** Whether to read this run (absent: every run); not read, its bucket's p95 need (GB); read, `done` at its end. */
  plan?: (t: StoredTemplate, gpu: string | null, pixels: number) => RunPlan;
}

interface Measure {
  attemptId: string;
  templateId: number;
  pixels: number;
  warm: boolean;
  baselineGb: number | null;
  peakGb: number;
  lowGb: number;
  otherGb: number;
  reads: number;
  /** Its VRAM is read while it runs; when not, `knownGb` is its bucket's p95 need. */
  sampled: boolean;
  knownGb: number | null;
  /** The plan's place for a run read, given back when it ends. */
  done: RunPlan['done'];
}

/** One workstation: its reads, the baseline, the attempts of ours running there. */
interface Station {
  client: ComfyClient;
  gpu: string | null;
  baselineGb: number | null;
  usableGb: number | null;
  /** The checkpoint of the last attempt measured here (undefined: none yet — warm is then assumed). */
  lastCheckpoint: string | null | undefined;
  running: Map<string, Measure>;
  timer: unknown;
  reading: boolean;
}

export class VramSampler {
  private readonly stations = new Map<string, Station>();

  constructor(private readonly d: VramSamplerDeps) {}

  private station(a: SampledAttempt): Station {
    let s = this.stations.get(a.instance.row.id);
    if (!s) {
      s = {
        client: a.client,
        gpu: a.instance.row.gpu_name,
        baselineGb: null,
        usableGb: null,
        lastCheckpoint: undefined,
        running: new Map(),
        timer: null,
        reading: false,
      };
      this.stations.set(a.instance.row.id, s);
    }
    s.client = a.client;
    return s;
  }

  private async read(s: Station): Promise<VramBreakdown | null> {
    const got = await settle(() => s.client.getSystemStats({ timeoutMs: READ_TIMEOUT_MS }));
    const v = got.ok ? vramBreakdown(got.value) : null;
    if (v) {
      if (v.gpuName && v.deviceType !== 'cpu') s.gpu = v.gpuName;
      s.usableGb = v.usableByComfyBytes / GB;
    }
    return v;
  }

  /** The server started our prompt: measure it until it ends. */
  started(a: SampledAttempt): void {
    if (this.d.config.vramSampleMs <= 0) return;
    const s = this.station(a);
    if (s.running.has(a.attemptId)) return;
    const probe = a.instance.lastOkProbe;
    if (probe?.vram) {
      s.usableGb = (probe.vram.totalBytes - probe.vram.otherBytes) / GB;
      // Probed while nothing of ours ran there: the idle baseline (else the one from before keeps).
      if (a.instance.ourAtProbe === 0 || s.baselineGb === null) s.baselineGb = probe.vram.comfyBytes / GB;
    }
    if (probe?.gpuName && probe.vram) s.gpu = probe.gpuName;
    const t = a.template;
    const checkpoint = checkpointOfJob(t.workflow, t.parameters, a.job.params_json);
    const pixels = jobPixels(t.workflow, t.parameters, a.job.params_json);
    const plan = this.d.plan?.(t, s.gpu, pixels) ?? { sample: true, knownGb: null };
    s.running.set(a.attemptId, {
      attemptId: a.attemptId,
      templateId: t.id,
      pixels,
      warm: s.lastCheckpoint === undefined || s.lastCheckpoint === checkpoint,
      baselineGb: s.baselineGb,
      peakGb: 0,
      lowGb: Number.POSITIVE_INFINITY,
      otherGb: 0,
      reads: 0,
      sampled: plan.sample,
      knownGb: plan.knownGb,
      done: plan.done,
    });
    s.lastCheckpoint = checkpoint;
    this.arm(s);
  }

  /** ComfyUI runs one prompt at a time: a read belongs to the one of ours that started last. */
  private current(s: Station): Measure | undefined {
    return [...s.running.values()].at(-1);
  }

  private arm(s: Station): void {
    if (s.timer !== null || !this.current(s)?.sampled) return;
    s.timer = this.d.timers.setTimeout(() => void this.tick(s), this.d.config.vramSampleMs);
  }

  private async tick(s: Station): Promise<void> {
    s.timer = null;
    if (!this.current(s)?.sampled || s.reading) return this.arm(s);
    s.reading = true;
    let v: VramBreakdown | null = null;
    try {
      v = await this.read(s);
    } finally {
      s.reading = false;
    }
    const m = this.current(s);
    if (v && m?.sampled) {
      const active = v.comfyActiveBytes / GB;
      m.peakGb = Math.max(m.peakGb, active);
      m.lowGb = Math.min(m.lowGb, active);
      m.otherGb = Math.max(m.otherGb, v.otherProcessesBytes / GB);
      m.reads++;
    }
    this.arm(s);
  }

  /** The attempt ended (before its outcome is recorded): store what it needed; nothing for a stop or a prompt too short to read. */
  ended(a: SampledAttempt, outcome: EndedAs | null): void {
    const s = this.stations.get(a.instance.row.id);
    const m = s?.running.get(a.attemptId);
    if (!s || !m) return;
    s.running.delete(a.attemptId);
    if (s.running.size === 0 && s.timer !== null) {
      this.d.timers.clearTimeout(s.timer);
      s.timer = null;
    }
    this.arm(s); // the one left running is read, if it is sampled and no read is armed
    const end = endOf(outcome);
    const oom = end === 'oom';
    const ok = end === 'ok';
    m.done?.(ok && m.reads < MIN_READS ? 'too-short' : ok || oom ? 'counted' : 'other');
    if (!s.gpu || (!oom && !(ok && m.reads >= MIN_READS))) return;
    const baseline = m.baselineGb ?? (m.reads > 0 ? m.lowGb : 0);
    const floor = m.warm ? 0 : Math.min(baseline, m.lowGb);
    // A run not read: its bucket's p95 need stands in for what the reads would have seen.
    const measured = m.reads > 0 ? Math.max(0, m.peakGb - floor) : (m.knownGb ?? 0);
    const seenPeak = m.reads > 0 ? m.peakGb : (m.knownGb ?? 0);
    // An OOM says "needed more than all ComfyUI could use there" only when the reads saw our prompt
    // fill at least half of it: an OOM at a small peak is transient (another process spiked) and
    // must not bar the template from a GPU it fits; it says only "more than it was seen to use".
    const usable = s.usableGb ?? 0;
    const filled = seenPeak > 0 && seenPeak >= CONFIRMED_SHARE * usable;
    const needGb = oom && filled ? Math.max(measured, usable - RESERVE_GB) : measured;
    if (needGb <= 0) return;
    // A measurement is worth less than the attempt's own record: never let it fail the attempt.
    const notRecorded = (err: unknown): void =>
      this.d.log(`VRAM of attempt ${m.attemptId} not recorded: ${(err as Error).message}`);
    try {
      const stored = this.d.record({
        attemptId: m.attemptId,
        templateId: m.templateId,
        gpu: s.gpu,
        pixels: m.pixels,
        outcome: oom ? 'oom' : 'ok',
        needGb,
        addedGb: m.reads > 0 ? Math.max(0, m.peakGb - baseline) : 0,
        peakGb: m.peakGb,
        baselineGb: baseline,
        otherGb: m.otherGb,
        warm: m.warm,
        reads: m.reads,
        at: this.d.clock.now(),
      });
      if (stored) stored.catch(notRecorded);
    } catch (err) {
      notRecorded(err);
    }
    // After an OOM ComfyUI unloads its models: the next baseline is read again.
    if (oom) s.lastCheckpoint = undefined;
  }
}
