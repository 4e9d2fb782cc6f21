/**
 * A running job's ETA and its words. A job next on its workstation (its prompt waits there behind
 * the running one: prefetch) ends after that one's time left plus its own usual run. With earlier runs of its template version on its GPU model
 * (the engine's `estimate`, a median) it is that time minus what has run; without, the sampler's
 * pace over the steps left. It never says "~0 s" while work remains: past the usual time it says
 * "overdue", and a pace-based figure with nodes still to come after the sampler is "at least". Pure.
 */
import type { JobProgress, JobView } from '../../shared/domain.js';
import { duration } from './format.js';
import { clockWords } from '../../shared/forecast.js';

export interface Eta {
  /** What the cell shows. */
  text: string;
  /** Milliseconds left, when there is a figure. */
  ms: number | null;
  /** The longer explanation (a tooltip). */
  title: string;
}

const NONE: Eta = { text: '—', ms: null, title: '' };

/** Overall progress through the workflow, 0–1: nodes done before this one plus this node's share of its steps. */
export function workflowFraction(p: Pick<JobProgress, 'value' | 'max' | 'nodesDone' | 'nodesTotal'>): number | null {
  if (!p.nodesTotal || p.nodesDone === undefined) return p.max > 0 ? Math.min(1, p.value / p.max) : null;
  const inNode = p.max > 0 ? Math.min(1, p.value / p.max) : 0;
  return Math.min(1, (Math.max(0, p.nodesDone - 1) + inNode) / p.nodesTotal);
}

export function etaOf(
  job: Pick<JobView, 'state' | 'startedAt' | 'estimate' | 'forecastEnd'>,
  p: JobProgress | null | undefined,
  now: number,
): Eta {
  if (job.state !== 'running' && job.forecastEnd) return forecastEta(job.forecastEnd, now);
  if (job.state !== 'running' || !job.startedAt) return NONE;
  const spent = Math.max(0, now - job.startedAt);
  const nodesLeft = p?.nodesTotal !== undefined && p.nodesDone !== undefined ? p.nodesTotal - p.nodesDone : null;
  if (job.estimate) {
    const left = job.estimate.typicalMs - spent;
    const usually = `usually ${duration(job.estimate.typicalMs)} on ${job.estimate.gpuName} (median of ${job.estimate.runs} run${job.estimate.runs === 1 ? '' : 's'})`;
    if (left >= 1_000) return { text: `~${duration(left)}`, ms: left, title: `${usually}; running ${duration(spent)}` };
    return { text: 'overdue', ms: null, title: `running ${duration(spent)}, longer than ${usually}` };
  }
  if (!p || p.max <= 0 || p.value <= 0 || p.value >= p.max)
    return { ...NONE, title: 'no earlier run of this template on this GPU model to go by' };
  const left = Math.max(1_000, (spent / p.value) * (p.max - p.value));
  // The sampler's pace says nothing about the nodes after it (decode, save): then it is a lower bound.
  const more = nodesLeft !== null && nodesLeft > 0;
  return {
    text: `${more ? '>' : '~'}${duration(left)}`,
    ms: left,
    title: `from the sampler's pace${more ? `; ${nodesLeft} more node${nodesLeft === 1 ? '' : 's'} after it` : ''} (no earlier run of this template on this GPU model)`,
  };
}

/** A waiting job's ETA: where the forecast placed it (docs/forecast.md), at the farm's current capacity. */
function forecastEta(end: { p50: number; p90: number }, now: number): Eta {
  const ms = Math.max(0, end.p50 - now);
  return {
    text: `≈ ${clockWords(end.p50, now)}`,
    ms,
    title: `the forecast expects it done ≈ ${clockWords(end.p50, now)} (nine in ten by ${clockWords(end.p90, now)}) at the farm's current capacity`,
  };
}

/**
 * The ETA of a job next on its workstation: `ahead` (the ETA of the prompt running there, which it
 * waits behind) plus its own usual run. Without either figure there is none — never the own run
 * alone, which would be a whole render short.
 */
export function nextEta(job: Pick<JobView, 'estimate'>, ahead: Eta | null, instanceName: string | null): Eta {
  const where = instanceName ?? 'its workstation';
  const after = `starts when the prompt running on ${where} ends`;
  if (!ahead || ahead.ms === null)
    return { ...NONE, title: `${after} (${ahead?.text === 'overdue' ? 'it is overdue' : 'no figure for it yet'})` };
  if (!job.estimate)
    return {
      text: `>${duration(ahead.ms)}`,
      ms: ahead.ms,
      title: `${after}, in ~${duration(ahead.ms)}; no earlier run of this template on this GPU model to add`,
    };
  const ms = ahead.ms + job.estimate.typicalMs;
  return {
    text: `~${duration(ms)}`,
    ms,
    title: `${after}, in ~${duration(ahead.ms)}, then usually ${duration(job.estimate.typicalMs)} on ${job.estimate.gpuName} (median of ${job.estimate.runs} run${job.estimate.runs === 1 ? '' : 's'})`,
  };
}
