/** An endpoint's facts in words, for its card and its form (one wording of each). */
import type { RunpodHealthView } from '../../../shared/domain.js';

const n = (v: number | null): string => (v === null ? '?' : v.toLocaleString());

/** "2 workers running · 1 idle", "3 in queue · 2 in progress" from /health. */
export function workerWords(h: RunpodHealthView): string {
  return `${n(h.workersRunning)} running · ${n(h.workersIdle)} idle`;
}

export function queueWords(h: RunpodHealthView): string {
  return `${n(h.inQueue)} in queue · ${n(h.inProgress)} in progress`;
}

export function endpointCounts(h: RunpodHealthView): string {
  return `Workers: ${workerWords(h)}; jobs at RunPod: ${queueWords(h)}`;
}

/** What the daily budget means for cloud burst, in words: $0 is "never". */
export function budgetWords(budgetUsdPerDay: number | null): string {
  if (budgetUsdPerDay === null)
    return 'Cloud burst spends at most burst_budget_usd_per_day (Settings) per day; its default, $0, means never: no job goes to an endpoint until it is raised.';
  if (budgetUsdPerDay <= 0)
    return 'The daily budget (burst_budget_usd_per_day, Settings) is $0, which means never: this endpoint takes no job until it is raised.';
  return `The daily budget (burst_budget_usd_per_day, Settings) is $${budgetUsdPerDay.toFixed(2)}: once today's (UTC) cloud spend reaches it, no new cloud job starts. $0 would mean never.`;
}
