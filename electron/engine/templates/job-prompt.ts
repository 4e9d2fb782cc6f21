/**
 * The workflow a job's attempt posts: its template's, with the shot's parameters, the job's seed and
 * the names its uploaded inputs got on the workstation. One function for both the attempt (what is
 * sent) and the job detail (what the drawer shows as sent), so the two never differ.
 */
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import type { JobRow } from '../store/job-rows.js';
import type { StoredTemplate } from '../store/template-store.js';
import { applyParameters, type ApiWorkflow } from './workflow.js';

/** The parameter values a job sets: the shot's, its seed (when the template has a `seed`), uploaded inputs' names. */
export function jobParameterValues(
  job: Pick<JobRow, 'params_json' | 'seed'>,
  template: Pick<StoredTemplate, 'parameters'>,
  uploaded: Readonly<Record<string, string>> = {},
): Record<string, ParamValue> {
  const params = JSON.parse(job.params_json) as Record<string, ParamValue>;
  if (job.seed !== null && 'seed' in template.parameters) params.seed = job.seed;
  return { ...params, ...uploaded };
}

/** The prompt to post; throws (bad_input, naming the parameter) when a parameter does not resolve. */
export function jobPrompt(
  job: Pick<JobRow, 'params_json' | 'seed'>,
  template: Pick<StoredTemplate, 'parameters' | 'workflow'>,
  uploaded: Readonly<Record<string, string>> = {},
): ApiWorkflow {
  return applyParameters(template.workflow, template.parameters, jobParameterValues(job, template, uploaded));
}
