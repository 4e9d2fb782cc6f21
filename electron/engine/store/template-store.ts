/**
 * Every statement on `templates`. Templates are versioned, never edited in place: jobs keep pointing
 * at the exact workflow they were made from, and the ledger records its hash.
 */
import type { TemplateView } from '../../../shared/domain.js';
import type { Clock } from '../clock.js';
import type { TemplateDefinition } from '../templates/template-file.js';
import type { ApiWorkflow } from '../templates/workflow.js';
import type { Db } from './database.js';
import { all, one } from './statements.js';

export interface TemplateRow {
  id: number;
  name: string;
  version: number;
  stage: string;
  description: string | null;
  workflow_json: string;
  params_json: string;
  hash: string;
  vram_gb: number;
  tags_json: string;
  timeout_s: number;
  created_at: number;
}

export interface StoredTemplate {
  id: number;
  name: string;
  version: number;
  stage: string;
  hash: string;
  workflow: ApiWorkflow;
  parameters: Record<string, string>;
  vramGb: number;
  tags: string[];
  timeoutS: number;
  createdAt: number;
}

/** Latest version of each template name. */
/** A job row's template version joined as `alias`, for another table's query (the run log's template_version). */
export function sqlJoinTemplateOf(jobAlias: string, alias: string): string {
  return `JOIN templates ${alias} ON ${alias}.id = ${jobAlias}.template_id`;
}

const SQL_LATEST_BY_NAME = `SELECT * FROM templates WHERE name = ? ORDER BY version DESC LIMIT 1`;
/** Every template's latest version, for lists and import validation. */
const SQL_LATEST_ALL = `SELECT t.* FROM templates t
  JOIN (SELECT name, MAX(version) AS v FROM templates GROUP BY name) m ON m.name = t.name AND m.v = t.version
  ORDER BY t.name`;
const SQL_BY_ID = `SELECT * FROM templates WHERE id = ?`;
const SQL_INSERT = `INSERT INTO templates (name, version, stage, description, workflow_json, params_json, hash, vram_gb, tags_json, timeout_s, created_at)
  VALUES (@name, @version, @stage, @description, @workflow_json, @params_json, @hash, @vram_gb, @tags_json, @timeout_s, @created_at) RETURNING id`;

export function toStoredTemplate(r: TemplateRow): StoredTemplate {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    stage: r.stage,
    hash: r.hash,
    workflow: JSON.parse(r.workflow_json) as ApiWorkflow,
    parameters: JSON.parse(r.params_json) as Record<string, string>,
    vramGb: r.vram_gb,
    tags: JSON.parse(r.tags_json) as string[],
    timeoutS: r.timeout_s,
    createdAt: r.created_at,
  };
}

export function toTemplateView(t: StoredTemplate): TemplateView {
  return {
    id: t.id,
    name: t.name,
    version: t.version,
    stage: t.stage,
    hash: t.hash,
    vramGb: t.vramGb,
    tags: t.tags,
    timeoutS: t.timeoutS,
    parameters: Object.entries(t.parameters).map(([name, path]) => ({ name, path })),
    createdAt: t.createdAt,
  };
}

export function latestTemplate(db: Db, name: string): StoredTemplate | null {
  const r = one<TemplateRow>(db, SQL_LATEST_BY_NAME, name);
  return r ? toStoredTemplate(r) : null;
}

export function templateById(db: Db, id: number): StoredTemplate | null {
  const r = one<TemplateRow>(db, SQL_BY_ID, id);
  return r ? toStoredTemplate(r) : null;
}

export function listLatestTemplates(db: Db): StoredTemplate[] {
  return all<TemplateRow>(db, SQL_LATEST_ALL).map(toStoredTemplate);
}

/** The version a definition would be stored as (the latest's own when its hash is the same), without storing it. */
export function versionFor(db: Db, def: TemplateDefinition): { version: number; existing: StoredTemplate | null } {
  const latest = latestTemplate(db, def.name);
  if (latest && latest.hash === def.hash) return { version: latest.version, existing: latest };
  return { version: (latest?.version ?? 0) + 1, existing: null };
}

/** Stores a definition as a new version unless the latest version has the same hash. */
export function saveTemplate(
  db: Db,
  clock: Clock,
  def: TemplateDefinition,
): { template: StoredTemplate; created: boolean } {
  const latest = latestTemplate(db, def.name);
  if (latest && latest.hash === def.hash) return { template: latest, created: false };
  const info = one<{ id: number }>(db, SQL_INSERT, {
    name: def.name,
    version: (latest?.version ?? 0) + 1,
    stage: def.stage,
    description: def.description,
    workflow_json: JSON.stringify(def.workflow),
    params_json: JSON.stringify(def.parameters),
    hash: def.hash,
    vram_gb: def.vramGb,
    tags_json: JSON.stringify(def.tags),
    timeout_s: def.timeoutS,
    created_at: clock.now(),
  });
  return { template: templateById(db, (info as { id: number }).id) as StoredTemplate, created: true };
}
