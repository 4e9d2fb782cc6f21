/**
 * Reads a template file (JSON: name, stage, parameters, workflow in API format) into a validated
 * definition. Every problem is reported with where it is, so the operator can fix the file.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues, templateFileSchema } from '../../../shared/shot-list-schema.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { defaultTimeoutS, defaultVramGb } from './stage-defaults.js';
import { asApiWorkflow, checkPath, isUiFormat, UI_FORMAT_MESSAGE, type ApiWorkflow } from './workflow.js';

export interface TemplateDefinition {
  name: string;
  stage: string;
  description: string | null;
  workflow: ApiWorkflow;
  parameters: Record<string, string>;
  vramGb: number;
  tags: string[];
  timeoutS: number;
  hash: string;
}

export function parseJsonText(content: string, where: string): unknown {
  try {
    return JSON.parse(content.replace(/^\uFEFF/, ''));
  } catch (err) {
    const msg = (err as Error).message;
    const pos = /position (\d+)/.exec(msg);
    let at = '';
    if (pos) {
      const upto = content.slice(0, Number(pos[1]));
      const line = upto.split('\n').length;
      const col = Number(pos[1]) - upto.lastIndexOf('\n');
      at = ` at line ${line}, column ${col}`;
    }
    throw new ShotfarmError('bad_input', `${where} is not valid JSON${at}: ${msg}`);
  }
}

export function parseTemplateFile(content: string, fileName = 'template'): TemplateDefinition {
  const raw = parseJsonText(content, fileName);
  if (isUiFormat(raw)) throw new ShotfarmError('bad_input', `${fileName}: ${UI_FORMAT_MESSAGE}`);
  const parsed = templateFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ShotfarmError('bad_input', `${fileName} is not a valid Shotfarm template:\n  ${describeIssues(parsed.error).join('\n  ')}`);
  }
  const t = parsed.data;
  const workflow = asApiWorkflow(t.workflow, `${fileName} → workflow`);
  const problems = Object.entries(t.parameters)
    .map(([name, path]) => [name, path, checkPath(workflow, path)] as const)
    .filter(([, , problem]) => problem !== null)
    .map(([name, path, problem]) => `parameter "${name}" → ${path}: ${problem}`);
  if (problems.length) {
    throw new ShotfarmError('bad_input', `${fileName} names parameters the workflow does not have:\n  ${problems.join('\n  ')}`);
  }
  return {
    name: t.name,
    stage: t.stage,
    description: t.description ?? null,
    workflow,
    parameters: t.parameters,
    vramGb: t.vram_gb ?? defaultVramGb(t.stage),
    tags: t.tags ?? [],
    timeoutS: t.timeout_s ?? defaultTimeoutS(t.stage),
    hash: sha256Hex(canonicalJson({ workflow, parameters: t.parameters })),
  };
}
