/**
 * Reads a CSV shot list: one row per shot-stage, columns mapped by the header alias table, with
 * defaults for what tracker exports do not carry (project, stage, template, priority) taken from
 * the mapping the operator gives. A CSV that cannot be parsed at all (an unclosed quote, a row
 * with the wrong number of cells) is refused whole, with the line; field problems stay on rows.
 */
import { parse } from 'csv-parse/sync';
import { ShotfarmError } from '../../../shared/errors.js';
import { isPriority, type Priority } from '../../../shared/priorities.js';
import { portableNameProblem } from '../../../shared/portable-name.js';
import type { ParamValue } from '../../../shared/shot-list-schema.js';
import { parameterValue, parseSeed, parseTake } from './cell-values.js';
import { parseDue } from '../../../shared/forecast.js';
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

/** A template is looked up by name, never used as a folder: it only must not be mistaken for a path. */
const TEMPLATE_FORBIDDEN = /[\\/\u0000-\u001f\u007f-\u009f]/;

export function readCsvShotList(
  content: string,
  fileName: string,
  mapping: CsvMapping,
  /** For the due time's sanity check (shared/forecast.ts parseDue). */
  now: number,
): ReadResult {
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
    throw new ShotfarmError(
      'bad_input',
      `${fileName} could not be read as CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}`,
    );
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
      throw new ShotfarmError(
        'bad_input',
        `The mapping feeds parameter "${param}" from column "${column}", which ${fileName} does not have.`,
      );
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
      if (role.kind === 'param') parameters[role.name] = parameterValue(v);
      else if (role.kind === 'input') inputs[role.name] = v;
      else if (role.kind === 'metadata') metadata[role.name] = v;
    });
    for (const [param, idx] of Object.entries(paramColumns)) {
      const v = (rec.record[idx] ?? '').trim();
      if (v !== '') parameters[param] = parameterValue(v);
    }
    for (const f of ['frames', 'frame_in', 'frame_out', 'fps', 'status', 'cut_order', 'tracker_id'] as const) {
      if (cell(f)) metadata[f] = cell(f);
    }

    const need = (f: 'project' | 'episode' | 'stage' | 'template', fallback: string | undefined): string => {
      const v = cell(f) || fallback || '';
      if (!v) errors.push(`no ${f}: add a "${f}" column or choose a default ${f} for the import`);
      else if (f === 'template') {
        if (TEMPLATE_FORBIDDEN.test(v) || v === '.' || v === '..')
          errors.push(`template "${v}" must not contain slashes or control characters`);
      } else {
        const problem = portableNameProblem(v, f);
        if (problem) errors.push(problem);
      }
      return v;
    };
    const project = need('project', mapping.project);
    const episode = need('episode', mapping.episode);
    const stage = need('stage', mapping.stage);
    const template = need('template', mapping.template);

    // A Kitsu/ShotGrid shot name is unique within its sequence; prefix it unless it already is.
    let shot = cell('shot');
    const seq = cell('sequence');
    const seqProblem = seq ? portableNameProblem(seq, 'sequence') : null;
    if (seqProblem) errors.push(seqProblem);
    if (!shot) errors.push('no shot name');
    else {
      const shotProblem = portableNameProblem(shot, 'shot');
      if (shotProblem) errors.push(shotProblem);
      else if (seq && !seqProblem && !shot.toLowerCase().startsWith(seq.toLowerCase())) {
        shot = `${seq}_${shot}`;
        const joined = portableNameProblem(shot, 'shot (sequence_shot)');
        if (joined) errors.push(joined);
      }
    }
    // Kept with the shot: the run log has a sequence column.
    if (seq) metadata.sequence = seq;

    let take = 1;
    if (cell('take')) {
      const t = parseTake(cell('take'));
      if (t.ok) take = t.value;
      else errors.push(t.message);
    }
    let priority: Priority = mapping.priority ?? 'normal';
    if (cell('priority')) {
      const p = cell('priority').toLowerCase();
      if (isPriority(p)) priority = p;
      else errors.push(`priority "${cell('priority')}" must be rush, high, normal or low`);
    }
    let seed: number | null = null;
    if (cell('seed')) {
      const sd = parseSeed(cell('seed'));
      if (sd.ok) seed = sd.value;
      else errors.push(sd.message);
    }
    let due: number | null = null;
    if (cell('due')) {
      const d = parseDue(cell('due'), now);
      if (d.ok) due = d.value;
      else errors.push(d.message);
    }
    const dependsOn = cell('depends_on') || null;
    const depProblem = dependsOn ? portableNameProblem(dependsOn, 'depends_on') : null;
    if (depProblem) errors.push(depProblem);
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
      dependsOn,
      seed,
      due,
      metadata,
      errors,
    };
  });
  return { format: 'csv', rows, mapping: mapped };
}
