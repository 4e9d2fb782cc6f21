/**
 * Reads a CSV shot list: one row per shot-stage, columns mapped by the header alias table, with
 * defaults for what tracker exports do not carry (project, stage, template, priority) taken from
 * the mapping the operator gives. A CSV that cannot be parsed at all (an unclosed quote, a row
 * with the wrong number of cells) is refused whole, with the line; field problems stay on rows.
 */
import { parse } from 'csv-parse/sync';
import { ShotfarmError } from '../../../shared/errors.js';
import { isPriority, type Priority } from '../../../shared/priorities.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import { columnRole, sniffDelimiter, type CanonicalField, type ColumnRole } from './header-aliases.js';
import type { ReadResult, ShotRow } from './shot-row.js';

export interface CsvMapping {
  project?: string | undefined;
  episode?: string | undefined;
  stage?: string | undefined;
  template?: string | undefined;
  priority?: Priority | undefined;
  /** Template parameter name → column header (or canonical field name) that feeds it. */
  parameters?: Record<string, string> | undefined;
}

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

const NAME_FORBIDDEN = /[\\/\u0000-\u001f]/;

function numberOrText(value: string): ParamValue {
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

export function readCsvShotList(content: string, fileName: string, mapping: CsvMapping = {}): ReadResult {
  const text = content.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new ShotfarmError('bad_input', `${fileName} is empty.`);
  let records: ParsedRecord[];
  try {
    records = parse(text, {
      delimiter: sniffDelimiter(text),
      info: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
    }) as unknown as ParsedRecord[];
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new ShotfarmError('bad_input', `${fileName} could not be read as CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}`);
  }
  const [header, ...data] = records;
  if (!header) throw new ShotfarmError('bad_input', `${fileName} has no header row.`);
  const roles: ColumnRole[] = header.record.map(columnRole);
  const fieldColumn = new Map<CanonicalField, number>();
  const mapped: Record<string, string> = {};
  roles.forEach((role, i) => {
    if (role.kind === 'field' && !fieldColumn.has(role.field)) {
      fieldColumn.set(role.field, i);
      mapped[role.field] = header.record[i] as string;
    }
  });
  if (!fieldColumn.has('shot')) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} has no shot column. Name one "Shot", "Shot Code" (ShotGrid) or "Name" (Kitsu); found: ${header.record.join(', ')}.`,
    );
  }
  const headerIndex = new Map(header.record.map((h, i) => [h.trim().toLowerCase(), i]));
  const paramColumns: Record<string, number> = {};
  for (const [param, column] of Object.entries(mapping.parameters ?? {})) {
    const idx = headerIndex.get(column.trim().toLowerCase()) ?? fieldColumn.get(column as CanonicalField);
    if (idx === undefined) {
      throw new ShotfarmError('bad_input', `The mapping feeds parameter "${param}" from column "${column}", which ${fileName} does not have.`);
    }
    paramColumns[param] = idx;
    mapped[`param:${param}`] = header.record[idx] as string;
  }

  const rows: ShotRow[] = data.map((rec, i) => {
    const cell = (f: CanonicalField): string => {
      const idx = fieldColumn.get(f);
      return idx === undefined ? '' : (rec.record[idx] ?? '').trim();
    };
    const errors: string[] = [];
    const parameters: Record<string, ParamValue> = {};
    const inputs: Record<string, string> = {};
    const metadata: Record<string, string> = {};
    roles.forEach((role, idx) => {
      const v = (rec.record[idx] ?? '').trim();
      if (v === '') return;
      if (role.kind === 'param') parameters[role.name] = numberOrText(v);
      else if (role.kind === 'input') inputs[role.name] = v;
      else if (role.kind === 'metadata') metadata[role.name] = v;
    });
    for (const [param, idx] of Object.entries(paramColumns)) {
      const v = (rec.record[idx] ?? '').trim();
      if (v !== '') parameters[param] = numberOrText(v);
    }
    for (const f of ['frames', 'frame_in', 'frame_out', 'fps', 'status', 'cut_order', 'tracker_id'] as const) {
      if (cell(f)) metadata[f] = cell(f);
    }

    const need = (f: 'project' | 'episode' | 'stage' | 'template', fallback: string | undefined): string => {
      const v = cell(f) || fallback || '';
      if (!v) errors.push(`no ${f}: add a "${f}" column or choose a default ${f} for the import`);
      else if (NAME_FORBIDDEN.test(v) || v === '.' || v === '..') errors.push(`${f} "${v}" must not contain slashes or control characters`);
      return v;
    };
    const project = need('project', mapping.project);
    const episode = need('episode', mapping.episode);
    const stage = need('stage', mapping.stage);
    const template = need('template', mapping.template);

    // A Kitsu/ShotGrid shot name is unique within its sequence; prefix it unless it already is.
    let shot = cell('shot');
    const seq = cell('sequence');
    if (!shot) errors.push('no shot name');
    else if (seq && !shot.toLowerCase().startsWith(seq.toLowerCase())) shot = `${seq}_${shot}`;
    // Kept with the shot: the run log has a sequence column.
    if (seq) metadata.sequence = seq;
    if (NAME_FORBIDDEN.test(shot)) errors.push(`shot "${shot}" must not contain slashes or control characters`);

    let take = 1;
    if (cell('take')) {
      take = Number(cell('take'));
      if (!Number.isInteger(take) || take < 1) errors.push(`take "${cell('take')}" must be a whole number from 1`);
    }
    let priority: Priority = mapping.priority ?? 'normal';
    if (cell('priority')) {
      const p = cell('priority').toLowerCase();
      if (isPriority(p)) priority = p;
      else errors.push(`priority "${cell('priority')}" must be rush, high, normal or low`);
    }
    let seed: number | null = null;
    if (cell('seed')) {
      seed = Number(cell('seed'));
      if (!Number.isSafeInteger(seed) || seed < 0) errors.push(`seed "${cell('seed')}" must be a whole number ≥ 0`);
    }
    return {
      row: i + 1,
      line: rec.info.lines,
      project,
      episode,
      shot,
      description: cell('description') || null,
      stage,
      template,
      take,
      priority,
      parameters,
      inputs,
      dependsOn: cell('depends_on') || null,
      seed,
      metadata,
      errors,
    };
  });
  return { format: 'csv', rows, mapping: mapped };
}
