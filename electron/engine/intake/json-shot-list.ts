/**
 * Reads `shot_list.json` (SPEC §7). The top level must be right (project, episode, shots) or the
 * whole file is refused; each shot is then validated on its own so one bad shot is reported as a
 * row error while the rest can still be imported.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import {
  describeIssues,
  shotEntrySchema,
  shotListSchema,
  type ShotEntry,
  type StageEntry,
} from '../../../shared/shot-list-schema.js';
import { z } from 'zod';
import { PRIORITIES, type Priority } from '../../../shared/priorities.js';
import { parseJsonText } from '../templates/template-file.js';
import { parseDue } from '../../../shared/forecast.js';
import { NO_ENTRIES, type ReadResult, type ShotRow } from './shot-row.js';
import { plainShotEntry } from './shot-entry-fast.js';

const PRIORITY_SET: ReadonlySet<string> = new Set(PRIORITIES);

const topLevel = shotListSchema.extend({ shots: z.array(z.unknown()) });

/**
 * Finds the line of `"id": "<shot>"` so row errors can point into the file. Shots appear in file
 * order, so the search resumes where the last one ended and lines are counted incrementally
 * (counting from the start each time would make a 100k-shot list quadratic).
 */
class ShotLocator {
  private pos = 0;
  private line = 1;

  constructor(private readonly content: string) {}

  lineOf(shotId: unknown): number | null {
    if (typeof shotId !== 'string') return null;
    // The id as it is written in the file (writers escape the same way JSON.stringify does for
    // ordinary names); each occurrence is accepted only after `"id"` and a colon.
    const needle = JSON.stringify(shotId);
    const c = this.content;
    for (let at = c.indexOf(needle, this.pos); at >= 0; at = c.indexOf(needle, at + 1)) {
      let i = at - 1;
      while (i >= 0 && isSpace(c.charCodeAt(i))) i--;
      if (c.charCodeAt(i) !== 58 /* : */) continue;
      i--;
      while (i >= 0 && isSpace(c.charCodeAt(i))) i--;
      if (i < 3 || c.slice(i - 3, i + 1) !== '"id"') continue;
      const keyAt = i - 3;
      this.line += countNewlines(c, this.pos, keyAt);
      const line = this.line;
      // Move past this match (two shots may share an id; the second must find the second occurrence).
      const end = at + needle.length;
      this.line += countNewlines(c, keyAt, end);
      this.pos = end;
      return line;
    }
    return null;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function countNewlines(s: string, from: number, to: number): number {
  // A bounded loop: indexOf would run to the end of a file without newlines on every call.
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

export function readJsonShotList(content: string, fileName: string, now: number): ReadResult {
  const raw = parseJsonText(content, fileName);
  const top = topLevel.safeParse(raw);
  if (!top.success) {
    throw new ShotfarmError(
      'bad_input',
      `${fileName} is not a valid shot list:\n  ${describeIssues(top.error).join('\n  ')}`,
    );
  }
  const { project, episode } = top.data;
  const listPriority = top.data.priority ?? 'normal';
  let listDue: number | null = null;
  if (top.data.due !== undefined) {
    const d = parseDue(top.data.due, now);
    if (!d.ok) throw new ShotfarmError('bad_input', `${fileName}: ${d.message}.`);
    listDue = d.value;
  }
  const rows: ShotRow[] = [];
  const locator = new ShotLocator(content);
  const shots = top.data.shots;
  for (let index = 0; index < shots.length; index++) {
    const rawShot = shots[index];
    const id = (rawShot as { id?: unknown } | null)?.id;
    const line = locator.lineOf(id);
    // The common shape is checked by hand; anything else (a bad shot included) by the schema, so
    // a row error reads exactly as the schema words it.
    let shot = plainShotEntry(rawShot);
    if (shot === null) {
      const parsed = shotEntrySchema.safeParse(rawShot);
      if (!parsed.success) {
        rows.push({
          line,
          project,
          episode,
          shot: typeof id === 'string' ? id : `#${index + 1}`,
          description: null,
          metadata: {},
          row: rows.length + 1,
          stage: '',
          template: '',
          take: 1,
          priority: listPriority,
          parameters: {},
          inputs: {},
          dependsOn: null,
          seed: null,
          due: listDue,
          errors: describeIssues(parsed.error).map((m) => `shots[${index}].${m}`),
        });
        continue;
      }
      shot = parsed.data;
    }
    const description = shot.description ?? null;
    if (shot.stages) {
      for (const st of shot.stages)
        rows.push(
          stageRow(shot, st, {
            index,
            line,
            project,
            episode,
            description,
            listPriority,
            listDue,
            now,
            row: rows.length + 1,
          }),
        );
    } else {
      rows.push(
        stageRow(
          shot,
          {
            stage: shot.stage ?? '',
            template: shot.template ?? '',
            take: shot.take,
            priority: shot.priority,
            parameters: shot.parameters,
            inputs: shot.inputs,
            depends_on: undefined,
            seed: shot.seed,
            due: undefined,
          },
          { index, line, project, episode, description, listPriority, listDue, now, row: rows.length + 1 },
        ),
      );
    }
  }
  return { format: 'json', rows, mapping: {} };
}

interface StageContext {
  index: number;
  line: number | null;
  project: string;
  episode: string;
  description: string | null;
  listPriority: string;
  listDue: number | null;
  now: number;
  row: number;
}

/** One stage of a valid shot as a row (a shot written inline is its one stage). */
function stageRow(shot: ShotEntry, st: StageEntry, c: StageContext): ShotRow {
  const errors: string[] = [];
  if (!shot.stages && (!shot.stage || !shot.template)) {
    errors.push(`shots[${c.index}]: give "stage" and "template", or a "stages" list`);
  }
  const priority = st.priority ?? shot.priority ?? c.listPriority;
  let due = c.listDue;
  const dueText = st.due ?? shot.due;
  if (dueText !== undefined) {
    const d = parseDue(dueText, c.now);
    if (d.ok) due = d.value;
    else errors.push(`shots[${c.index}]: ${d.message}`);
  }
  return {
    line: c.line,
    project: c.project,
    episode: c.episode,
    // The id as validated (trimmed), not as written: " sh010" and "sh010" are one shot and one folder.
    shot: shot.id,
    description: c.description,
    metadata: NO_ENTRIES,
    row: c.row,
    stage: st.stage,
    template: st.template,
    take: st.take ?? 1,
    priority: PRIORITY_SET.has(priority) ? (priority as Priority) : 'normal',
    parameters: st.parameters ?? {},
    inputs: st.inputs ?? NO_ENTRIES,
    dependsOn: st.depends_on ?? null,
    seed: st.seed ?? null,
    due,
    errors,
  };
}
