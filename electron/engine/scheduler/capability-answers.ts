/**
 * Which workstations have every node and model a job needs, remembered per combination of template
 * and combo parameters (ComboKeys) while the node lists stay the same objects: the queue and an
 * import are mostly jobs that differ only in free text, so one answer serves thousands of them.
 * Used by the dispatcher, the wait explanations and the import preview alike, over live lists or
 * stored ones.
 */
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import type { WorkflowProblem } from '../comfy/capabilities.js';
import type { ObjectInfo } from '../comfy/schemas.js';
import type { StoredTemplate } from '../store/template-store.js';
import { CapabilityCache, ComboKeys, describeProblem, unrunnableReason } from './capability-check.js';

/** One workstation's node list, when one is known (live, or as stored). */
export interface NodeListSource {
  id: string;
  info: ObjectInfo | null;
}

export interface CapabilityAnswer {
  /** Per workstation with a known list: what it lacks for this job, in words ([] = nothing). */
  problems: ReadonlyMap<string, readonly string[]>;
  /** Those that lack nothing. */
  capable: ReadonlySet<string>;
  /** Why none of these workstations can run it ("node `X` is not installed on any workstation"). */
  reasonAmong(ids: readonly string[]): string;
}

/** At most this many answers are remembered; past it they are forgotten and recomputed. */
const MEMO_LIMIT = 10_000;

export class CapabilityAnswers {
  private readonly cache = new CapabilityCache();
  private memo: {
    ids: string[];
    infos: ObjectInfo[];
    keys: ComboKeys;
    answers: Map<string, CapabilityAnswer>;
  } | null = null;

  answer(
    sources: readonly NodeListSource[],
    template: StoredTemplate,
    params: Record<string, ParamValue> | string,
  ): CapabilityAnswer {
    // Each workstation holds its own list object, so the same objects for the same ids mean the same lists.
    if (!this.memoHolds(sources)) {
      const known = knownLists(sources);
      const infos = known.map((s) => s.info);
      this.memo = { ids: known.map((s) => s.id), infos, keys: new ComboKeys(infos), answers: new Map() };
    }
    const memo = this.memo as NonNullable<typeof this.memo>;
    const parsed = typeof params === 'string' ? parseParams(params) : params;
    const key = memo.keys.keyOf(template, parsed);
    let answer = memo.answers.get(key);
    if (!answer) {
      answer = this.compute(knownLists(sources), template, parsed);
      if (memo.answers.size >= MEMO_LIMIT) memo.answers.clear();
      memo.answers.set(key, answer);
    }
    return answer;
  }

  /**
   * Whether the remembered answers are for these lists: the same workstations with a known list,
   * in order, holding the same list objects. Asked for every job (a 100k-row preview, every
   * dispatch pass), so it compares in place rather than building the lists' arrays each time.
   */
  private memoHolds(sources: readonly NodeListSource[]): boolean {
    const m = this.memo;
    if (!m) return false;
    let k = 0;
    for (const s of sources) {
      if (s.info === null) continue;
      if (m.ids[k] !== s.id || m.infos[k] !== s.info) return false;
      k++;
    }
    return k === m.ids.length;
  }

  private compute(
    known: { id: string; info: ObjectInfo }[],
    template: StoredTemplate,
    params: Record<string, ParamValue>,
  ): CapabilityAnswer {
    const raw = new Map<string, WorkflowProblem[]>();
    const problems = new Map<string, string[]>();
    const capable = new Set<string>();
    for (const { id, info } of known) {
      const found = this.cache.problems(info, template, params);
      raw.set(id, found);
      problems.set(id, [...new Set(found.map(describeProblem))]);
      if (found.length === 0) capable.add(id);
    }
    return {
      problems,
      capable,
      reasonAmong: (ids) =>
        unrunnableReason(
          ids.map((id) => raw.get(id)).filter((l): l is WorkflowProblem[] => l !== undefined && l.length > 0),
        ),
    };
  }
}

/** The workstations whose node list is known. */
function knownLists(sources: readonly NodeListSource[]): { id: string; info: ObjectInfo }[] {
  return sources.filter((s): s is { id: string; info: ObjectInfo } => s.info !== null);
}

/** Unreadable parameters are reported when the prompt is built; here they check as none. */
function parseParams(json: string): Record<string, ParamValue> {
  try {
    return JSON.parse(json) as Record<string, ParamValue>;
  } catch {
    return {};
  }
}
