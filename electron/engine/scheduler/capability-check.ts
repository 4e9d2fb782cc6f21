/**
 * Pre-dispatch capability checks (SPEC §3): does an instance's /object_info have every node class
 * and model file a job's workflow names? Results are cached per (instance node list, template,
 * parameters), since thousands of queued jobs share a handful of combinations.
 */
import type { ObjectInfo } from '../comfy/schemas.js';
import { checkWorkflowAgainstObjectInfo, type WorkflowProblem } from '../comfy/capabilities.js';
import type { StoredTemplate } from '../store/template-store.js';
import { applyParameters } from '../templates/workflow.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';

/** Inputs filled by uploads at dispatch are not on the server yet: never check them against its lists. */
const skipInput = (classType: string, input: string): boolean => /LoadImage/i.test(classType) && input === 'image';

export function describeProblem(p: WorkflowProblem): string {
  if (p.kind === 'missing_node') return p.classType ? `node \`${p.classType}\` is not installed` : `node ${p.nodeId} has no class_type`;
  return `model \`${p.value}\` (${p.classType}.${p.input}) is not available`;
}

export class CapabilityCache {
  private readonly cache = new WeakMap<ObjectInfo, Map<string, WorkflowProblem[]>>();

  problems(info: ObjectInfo, template: StoredTemplate, paramsJson: string): WorkflowProblem[] {
    let perInfo = this.cache.get(info);
    if (!perInfo) {
      perInfo = new Map();
      this.cache.set(info, perInfo);
    }
    const key = `${template.id}\u001f${paramsJson}`;
    let found = perInfo.get(key);
    if (!found) {
      let workflow = template.workflow;
      try {
        workflow = applyParameters(template.workflow, template.parameters, JSON.parse(paramsJson) as Record<string, ParamValue>);
      } catch {
        // A parameter problem is reported when the attempt builds its prompt; check the template as is.
      }
      found = checkWorkflowAgainstObjectInfo(workflow, info, { skipInput });
      if (perInfo.size > 5000) perInfo.clear();
      perInfo.set(key, found);
    }
    return found;
  }
}

/** "node `VHS_VideoCombine` is not installed on any workstation", for the operator. */
export function unrunnableReason(problemsByInstance: WorkflowProblem[][]): string {
  const common = new Map<string, number>();
  for (const list of problemsByInstance) for (const p of new Set(list.map(describeProblem))) common.set(p, (common.get(p) ?? 0) + 1);
  const everywhere = [...common].filter(([, n]) => n === problemsByInstance.length).map(([p]) => p);
  const shown = everywhere.length ? everywhere : [...common.keys()];
  return `${shown.slice(0, 3).join('; ')} on any workstation`;
}
