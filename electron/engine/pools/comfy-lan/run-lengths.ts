/**
 * How long a prompt runs on one workstation, from the last few it ran (start to end), and so when
 * the prompts running there now are expected to end: what orders the waiting places behind them
 * (dispatch-choice.ts). An estimate for ordering only — nothing waits on it. Pure.
 */
import { median } from '../../queries/run-estimates.js';

/** The last runs the median is taken over: recent enough to follow a change of workload. */
const KEEP = 9;

export class RunLengths {
  private readonly runs: number[] = [];

  add(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.runs.push(ms);
    if (this.runs.length > KEEP) this.runs.shift();
  }

  /** The typical run (ms); null before the first run ended. */
  typical(): number | null {
    return median(this.runs);
  }
}

/** What the expected end of a running prompt is counted from. */
export interface RunClock {
  /** When it took the slot (posted to a free GPU, or the prompt before it ended). */
  since: number;
  /** When the server said it started executing (`execution_start`); null until then. */
  startedAt: number | null;
}

/**
 * The expected end of the first of these prompts to end: from the time each actually started when
 * known (`'start'`), else from when it took its slot; null without an estimate or a prompt.
 */
export function firstExpectedEnd(prompts: Iterable<RunClock>, typicalMs: number | null): number | null {
  if (typicalMs === null) return null;
  let first: number | null = null;
  for (const p of prompts) {
    const end = (p.startedAt ?? p.since) + typicalMs;
    first = first === null ? end : Math.min(first, end);
  }
  return first;
}
