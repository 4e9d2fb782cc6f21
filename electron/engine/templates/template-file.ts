/**
 * Reads a template file (JSON: name, stage, parameters, workflow in API format) into a validated
 * definition. Every problem is reported with where it is, so the operator can fix the file.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues, templateFileSchema } from '../../../shared/shot-list-schema.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { jsonErrorOffset, lineAndColumn } from './json-error-position.js';
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
  const text = content.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (err) {
    const offset = jsonErrorOffset(text);
    const at = offset >= 0 ? lineAndColumn(text, offset) : null;
    const near = offset >= 0 ? ` near ${JSON.stringify(text.slice(offset, offset + 20))}` : '';
    throw new ShotfarmError(
      'bad_input',
      `${where} is not valid JSON${at ? ` at line ${at.line}, column ${at.column}` : ''}${near}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

export function parseTemplateFile(content: string, fileName = 'template'): TemplateDefinition {
  const raw = parseJsonText(content, fileName);
  if (isUiFormat(raw)) throw new ShotfarmError('bad_input', `${fileName}: ${UI_FORMAT_MESSAGE}`);
  const parsed = templateFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} is not a valid Shotfarm template:\n  ${describeIssues(parsed.error).join('\n  ')}`,
    );
  }
  const t = parsed.data;
  const workflow = asApiWorkflow(t.workflow, `${fileName} → workflow`);
  const problems = Object.entries(t.parameters)
    .map(([name, path]) => [name, path, checkPath(workflow, path)] as const)
    .filter(([, , problem]) => problem !== null)
    .map(([name, path, problem]) => `parameter "${name}" → ${path}: ${problem}`);
  if (problems.length) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} names parameters the workflow does not have:\n  ${problems.join('\n  ')}`,
    );
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
