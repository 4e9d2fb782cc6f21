/**
 * The cloud burst policy (issue 18), pure and table-tested: may a RunPod endpoint take this
 * queued job now? LAN workstations are preferred — the LAN pass runs first, so a job reaching this
 * question was not placed on the LAN — and an endpoint takes it only when it has waited longer than
 * burst_after_s, or is rush while no LAN slot is free; and only while today's cloud spend is under
 * the daily budget. The refusal says why in the words the views show.
 */

export interface BurstInput {
  /** How long the job has waited in the queue (s). */
  waitedS: number;
  rush: boolean;
  /**
   * A LAN slot is free now (then a rush job goes to the LAN, or waits for what it needs there) — on
   * the whole farm: with several engines, one of another engine's workstations that can take the job counts too.
   */
  lanSlotFree: boolean;
  burstAfterS: number;
  spentTodayUsd: number;
  budgetUsdPerDay: number;
}

export type BurstDecision =
  | { take: true; because: 'waited' | 'rush' }
  | {
      take: false;
      reason: string /** When asking again may change the answer (s from now); null: only a change of budget or spend. */;
      askAgainInS: number | null;
    };

/** "10 min", "90 s", "2 h" */
export function durationWords(s: number): string {
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`;
  if (s >= 60 && s % 60 === 0) return `${s / 60} min`;
  return `${Math.round(s * 10) / 10} s`;
}

const usd = (v: number): string => `$${v.toFixed(2)}`;

export function burstDecision(i: BurstInput): BurstDecision {
  if (i.budgetUsdPerDay <= 0)
    return { take: false, reason: 'cloud burst is off (burst_budget_usd_per_day is 0)', askAgainInS: null };
  if (i.spentTodayUsd >= i.budgetUsdPerDay) {
    return {
      take: false,
      reason: `today's cloud budget is spent (${usd(i.spentTodayUsd)} of ${usd(i.budgetUsdPerDay)})`,
      askAgainInS: null,
    };
  }
  if (i.waitedS > i.burstAfterS) return { take: true, because: 'waited' };
  if (i.rush && !i.lanSlotFree) return { take: true, because: 'rush' };
  return {
    take: false,
    reason: `cloud burst waits until the job has waited ${durationWords(i.burstAfterS)}`,
    askAgainInS: Math.max(0, i.burstAfterS - i.waitedS),
  };
}
