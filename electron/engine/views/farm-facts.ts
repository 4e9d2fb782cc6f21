/** Why nothing is dispatched while the operator holds the farm. */
export function notDispatching(state: Exclude<FarmState, 'running'>): string {
  return `the farm is ${state} (resume it to dispatch)`;
}

/**
 * Why no queued job is dispatched now, whatever holds the whole farm — the operator (paused,
 * stopped: lasts until someone resumes it) or its storage (a full disk, a locked database: ends by
 * itself when a write succeeds) — or null while the farm dispatches.
 */
export function farmHold(
  facts: Pick<FarmFacts, 'farmState' | 'storageHold'>,
): { words: string; lasting: 'operator' | 'now' } | null {
  if (facts.farmState !== 'running') return { words: notDispatching(facts.farmState), lasting: 'operator' };
  const hold = facts.storageHold;
  return hold ? { words: `the farm waits for its storage: ${hold.reason}`, lasting: 'now' } : null;
}

/**
 * What is known of the farm at one moment — every registered workstation and the node lists known
 * for it — from which waits are explained, blocked jobs found and an import's nodes checked. The
 * running farm builds it from its live probes (Scheduler.waitFacts); a process without one (the CLI)
 * from the store (stored-facts.ts). Both answer the same questions the same way.
 */
import type { StorageHoldView } from '../../../shared/domain.js';
import type { FarmState } from '../../../shared/farm-settings.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import type { CapabilityPort } from '../intake/preview.js';
import type { JobVram } from '../scheduler/vram-need.js';
import type { StoredTemplate } from '../store/template-store.js';
import type { CapabilityAnswer, CapabilityAnswers, NodeListSource } from '../scheduler/capability-answers.js';
import type { InstanceFacts } from './wait-reasons.js';
import type { BurstWait } from '../pools/runpod/burst-wait.js';

export interface FarmFacts extends CapabilityPort {
  source: 'farm' | 'store';
  /** Every registered workstation, in name order; capabilityProblems are per job (capability()). */
  instances: readonly InstanceFacts[];
  capability(template: StoredTemplate, params: Record<string, ParamValue> | string): CapabilityAnswer;
  /** The operator's farm state: paused or stopped, nothing is dispatched until it is resumed. */
  farmState: FarmState;
  /** The running farm waits for its storage (no dispatch until a write succeeds); null or absent when it does not. */
  storageHold?: StorageHoldView | null;
  /**
   * Changes whenever what could make a job blocked changes: the workstations themselves, their
   * tags, VRAM totals and overrides, their node lists. Blocked jobs are re-evaluated when it does.
   */
  fingerprint: string;
  /** Projects over their fair share of GPU time now (the running farm only; fair-share.ts). */
  overShare?: readonly string[];
  /** Why a queued job is not on a cloud endpoint yet (pools/runpod/burst-wait.ts), or null. */
  burstWait: BurstWait;
  /** A job's learned VRAM per GPU model (templates/vram-knowledge.ts); absent: the declared number. */
  vram?: (template: StoredTemplate, paramsJson: string) => JobVram;
}

/** A node list with a token naming its content (a live object's identity, a stored list's hash). */
export interface KnownNodeList extends NodeListSource {
  token: string;
}

export function makeFarmFacts(
  source: FarmFacts['source'],
  instances: readonly InstanceFacts[],
  lists: readonly KnownNodeList[],
  answers: CapabilityAnswers,
  farmState: FarmState,
  burstWait: BurstWait = () => null,
): FarmFacts {
  const capability = (template: StoredTemplate, params: Record<string, ParamValue> | string): CapabilityAnswer =>
    answers.answer(lists, template, params);
  const tokens = new Map(lists.map((l) => [l.id, l.token]));
  const problemsByAnswer = new WeakMap<CapabilityAnswer, string[] | null>();
  const fingerprint = instances
    .map((i) =>
      [i.id, i.tags.join(','), JSON.stringify(i.vramOverrides), i.totalVramBytes ?? '-', tokens.get(i.id) ?? '-'].join(
        ' ',
      ),
    )
    .join('\n');
  return {
    source,
    instances,
    farmState,
    fingerprint,
    capability,
    burstWait,
    // The import preview: against enabled workstations only, and only those whose list is known.
    capabilityProblems(template, params) {
      const answer = capability(template, params);
      // Answers are shared by every job of the same template and combo values: a 100k-row preview
      // works out the enabled workstations' verdict once per answer, not once per row.
      let problems = problemsByAnswer.get(answer);
      if (problems === undefined) {
        const enabled = instances
          .filter((i) => i.adminState !== 'disabled' && answer.problems.has(i.id))
          .map((i) => i.id);
        problems =
          enabled.length === 0
            ? null
            : enabled.some((id) => answer.capable.has(id))
              ? []
              : [answer.reasonAmong(enabled)];
        problemsByAnswer.set(answer, problems);
      }
      return problems === null ? null : [...problems];
    },
  };
}
