/**
 * `jobs.detail`: one job as the drawer shows it — its shot path, template version, place in the
 * queue, the prompt's resolved parameters and workflow (built by the attempt's own code,
 * templates/job-prompt.ts, with the names its input files get on the workstation), inputs, outputs
 * and state history. Nothing here is sent anywhere: it is what an attempt would post now.
 */
import { basename } from 'node:path';
import type { JobDetail, JobInputView, ResolvedParameter, WorkflowJson } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { takePathOf, type JobHistoryEntry } from '../../../shared/job-detail.js';
import { priorityFromValue } from '../../../shared/priorities.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import { jobEvents } from '../job-state.js';
import { dependencyInputParam, uploadPlan, uploadSubfolder } from '../pools/attempt/inputs.js';
import { assetsOfJob } from '../store/asset-store.js';
import type { Db } from '../store/database.js';
import type { JobRow } from '../store/job-rows.js';
import { jobRow, orderChanges, queuedAhead } from '../store/job-store.js';
import { latestTemplate, templateById, type StoredTemplate } from '../store/template-store.js';
import { jobParameterValues, jobPrompt } from '../templates/job-prompt.js';
import { splitPath } from '../templates/workflow.js';

/** The job's uploads as the prompt names them; a dependency's output not made yet is said so. */
function inputsOf(db: Db, job: JobRow, template: StoredTemplate): JobInputView[] {
  let plan: { param: string; file: string; what: string }[];
  try {
    plan = uploadPlan(db, job, template);
  } catch {
    // Its dependency has no image yet (it has not completed): the input is known, the file is not.
    const own = Object.entries(JSON.parse(job.inputs_json) as Record<string, string>).map(([param, file]) => ({
      param,
      file,
      what: `input "${param}"`,
    }));
    const param = dependencyInputParam(template);
    return [
      ...own.map((u) => ({ ...u, sentAs: `${uploadSubfolder(job.id)}/${basename(u.file)}` })),
      ...(param && !own.some((u) => u.param === param)
        ? [{ param, file: '', what: 'the output of the stage it waits for, once that completes', sentAs: '' }]
        : []),
    ];
  }
  return plan.map((u) => ({ ...u, sentAs: `${uploadSubfolder(job.id)}/${basename(u.file)}` }));
}

/** Every template parameter with the value in the prompt and where it came from. */
function resolvedParameters(
  template: StoredTemplate,
  shot: Record<string, ParamValue>,
  values: Record<string, ParamValue>,
  inputs: readonly JobInputView[],
): ResolvedParameter[] {
  return Object.entries(template.parameters).map(([name, path]) => {
    const { nodeId, input } = splitPath(path);
    const fromTemplate = template.workflow[nodeId]?.inputs[input];
    const value = name in values ? (values[name] as ParamValue) : isParamValue(fromTemplate) ? fromTemplate : null;
    const source = inputs.some((i) => i.param === name)
      ? 'input'
      : name === 'seed' && !(name in shot) && name in values
        ? 'seed'
        : name in shot
          ? 'shot'
          : 'template';
    return { name, path, value, source };
  });
}

function isParamValue(v: unknown): v is ParamValue {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function jobDetail(db: Db, id: string): JobDetail {
  const job = jobRow(db, id);
  if (!job) throw new ShotfarmError('not_found', `Job ${id} does not exist.`);
  const template = templateById(db, job.template_id);
  if (!template)
    throw new ShotfarmError(
      'not_found',
      `Template ${job.template_name} (id ${job.template_id}) of job ${id} does not exist.`,
    );
  const shot = JSON.parse(job.params_json) as Record<string, ParamValue>;
  const inputs = inputsOf(db, job, template);
  const uploaded = Object.fromEntries(inputs.filter((i) => i.sentAs).map((i) => [i.param, i.sentAs]));
  let workflow: WorkflowJson | null = null;
  let problem: string | null = null;
  try {
    workflow = jobPrompt(job, template, uploaded);
  } catch (err) {
    problem = (err as Error).message;
  }
  const dep = job.depends_on ? jobRow(db, job.depends_on) : null;
  return {
    jobId: job.id,
    path: takePathOf(job),
    template: {
      id: template.id,
      name: template.name,
      version: template.version,
      latestVersion: latestTemplate(db, template.name)?.version ?? template.version,
      stage: template.stage,
      hash: template.hash,
      timeoutS: job.timeout_s,
    },
    queuePosition: job.state === 'queued' ? queuedAhead(db, job.id) + 1 : null,
    seed: job.seed,
    seedPinned: job.seed_pinned === 1,
    parameters: shot,
    resolved: resolvedParameters(template, shot, jobParameterValues(job, template, uploaded), inputs),
    inputs,
    workflow,
    problem,
    dependency: dep ? { id: dep.id, stage: dep.stage, take: dep.take, state: dep.state } : null,
    outputs: assetsOfJob(db, job.id),
    events: jobHistory(db, job.id, 50),
  };
}

/**
 * A job's history, newest first: its state changes and its order changes merged in the order they
 * happened (an order change sits right after the state change that was newest when it was made).
 */
function jobHistory(db: Db, jobId: string, limit: number): JobHistoryEntry[] {
  const states = jobEvents(db, jobId, limit).map((e) => ({
    key: [e.id, 0] as const,
    entry: {
      kind: 'state',
      from: e.from_state,
      to: e.to_state,
      reason: e.reason,
      actor: e.actor,
      at: e.at,
    } satisfies JobHistoryEntry,
  }));
  const orders = orderChanges(db, jobId, limit).map((c) => ({
    key: [c.after_event, c.id] as const,
    entry: {
      kind: 'order',
      fromPriority: priorityFromValue(c.from_priority),
      toPriority: priorityFromValue(c.to_priority),
      why: c.why,
      actor: c.actor,
      at: c.at,
    } satisfies JobHistoryEntry,
  }));
  return [...states, ...orders]
    .sort((a, b) => b.key[0] - a.key[0] || b.key[1] - a.key[1])
    .slice(0, limit)
    .map((h) => h.entry);
}
