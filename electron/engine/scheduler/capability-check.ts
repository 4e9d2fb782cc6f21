/**
 * Pre-dispatch capability checks (SPEC §3): does an instance's /object_info have every node class
 * and model file a job's workflow names? Results are cached per (instance node list, template,
 * parameters), since thousands of queued jobs share a handful of combinations.
 */
import type { ObjectInfo } from '../comfy/schemas.js';
import { checkWorkflowAgainstObjectInfo, comboValues, type WorkflowProblem } from '../comfy/capabilities.js';
import type { StoredTemplate } from '../store/template-store.js';
import { splitPath } from '../templates/workflow.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';

/** Inputs filled by uploads at dispatch are not on the server yet: never check them against its lists. */
const skipInput = (classType: string, input: string): boolean => /LoadImage/i.test(classType) && input === 'image';

export function describeProblem(p: WorkflowProblem): string {
  if (p.kind === 'missing_node')
    return p.classType ? `node \`${p.classType}\` is not installed` : `node ${p.nodeId} has no class_type`;
  return `model \`${p.value}\` (${p.classType}.${p.input}) is not available`;
}

/**
 * Checks workflows against node lists, cheaply enough for 100k queued jobs or a 100k-row import:
 * the template is checked once per node list (without the inputs its parameters set), and each
 * job adds only a lookup per parameter that feeds a combo input (a model name, a sampler…).
 * Free-text parameters — prompts, seeds — cost nothing and never make the cache miss.
 */
export class CapabilityCache {
  private readonly base = new WeakMap<ObjectInfo, Map<number, WorkflowProblem[]>>();

  private templateProblems(info: ObjectInfo, template: StoredTemplate): WorkflowProblem[] {
    let perInfo = this.base.get(info);
    if (!perInfo) {
      perInfo = new Map();
      this.base.set(info, perInfo);
    }
    let found = perInfo.get(template.id);
    if (!found) {
      const overridden = new Set(Object.values(template.parameters));
      found = checkWorkflowAgainstObjectInfo(template.workflow, info, {
        skipInput: (classType, input) => skipInput(classType, input),
      }).filter((p) => p.kind === 'missing_node' || !overridden.has(`${p.nodeId}.${p.input}`));
      perInfo.set(template.id, found);
    }
    return found;
  }

  problems(info: ObjectInfo, template: StoredTemplate, params: Record<string, ParamValue>): WorkflowProblem[] {
    const base = this.templateProblems(info, template);
    const extra: WorkflowProblem[] = [];
    for (const [name, value] of Object.entries(params)) {
      const path = template.parameters[name];
      if (!path || typeof value !== 'string') continue;
      const { nodeId, input } = splitPath(path);
      const classType = template.workflow[nodeId]?.class_type;
      if (!classType || skipInput(classType, input)) continue;
      const allowed = comboValues(info, classType, input);
      if (allowed && !allowed.includes(value)) extra.push({ kind: 'missing_model', nodeId, classType, input, value });
    }
    return extra.length ? [...base, ...extra] : base;
  }
}

/**
 * The part of a job's parameters a capability check can depend on: the values of parameters that
 * feed a combo input (a model, a sampler) on any of these node lists. Jobs with equal keys get
 * equal answers, so an import of 100k rows that differ only in their prompts is checked once.
 */
export class ComboKeys {
  private readonly comboParams = new Map<number, string[]>();

  constructor(private readonly infos: readonly ObjectInfo[]) {}

  keyOf(template: StoredTemplate, params: Record<string, ParamValue>): string {
    let names = this.comboParams.get(template.id);
    if (!names) {
      names = Object.entries(template.parameters)
        .filter(([, path]) => {
          const { nodeId, input } = splitPath(path);
          const classType = template.workflow[nodeId]?.class_type;
          return (
            !!classType &&
            !skipInput(classType, input) &&
            this.infos.some((info) => comboValues(info, classType, input) !== null)
          );
        })
        .map(([name]) => name);
      this.comboParams.set(template.id, names);
    }
    let key = String(template.id);
    for (const n of names) {
      const v = params[n];
      key += `\u001f${typeof v === 'string' ? v : ''}`;
    }
    return key;
  }
}

/** "node `VHS_VideoCombine` is not installed on any workstation", for the operator. */
export function unrunnableReason(problemsByInstance: WorkflowProblem[][]): string {
  const common = new Map<string, number>();
  for (const list of problemsByInstance)
    for (const p of new Set(list.map(describeProblem))) common.set(p, (common.get(p) ?? 0) + 1);
  const everywhere = [...common].filter(([, n]) => n === problemsByInstance.length).map(([p]) => p);
  const shown = everywhere.length ? everywhere : [...common.keys()];
  return `${shown.slice(0, 3).join('; ')} on any workstation`;
}
