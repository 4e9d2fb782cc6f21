/**
 * Reads `shot_list.json` (SPEC §7). The top level must be right (project, episode, shots) or the
 * whole file is refused; each shot is then validated on its own so one bad shot is reported as a
 * row error while the rest can still be imported.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues, shotEntrySchema, shotListSchema } from '../../../shared/shot-list-schema.js';
import { z } from 'zod';
import { PRIORITIES } from '../../../shared/priorities.js';
import { parseJsonText } from '../templates/template-file.js';
import type { ReadResult, ShotRow } from './shot-row.js';

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

export function readJsonShotList(content: string, fileName: string): ReadResult {
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
  const rows: ShotRow[] = [];
  const locator = new ShotLocator(content);
  top.data.shots.forEach((rawShot, index) => {
    const id = (rawShot as { id?: unknown } | null)?.id;
    const line = locator.lineOf(id);
    const parsed = shotEntrySchema.safeParse(rawShot);
    const base = {
      line,
      project,
      episode,
      shot: typeof id === 'string' ? id : `#${index + 1}`,
      description: null as string | null,
      metadata: {},
    };
    if (!parsed.success) {
      rows.push({
        ...base,
        row: rows.length + 1,
        stage: '',
        template: '',
        take: 1,
        priority: listPriority,
        parameters: {},
        inputs: {},
        dependsOn: null,
        seed: null,
        errors: describeIssues(parsed.error).map((m) => `shots[${index}].${m}`),
      });
      return;
    }
    const shot = parsed.data;
    // The id as validated (trimmed), not as written: " sh010" and "sh010" are one shot and one folder.
    base.shot = shot.id;
    base.description = shot.description ?? null;
    const stages = shot.stages ?? [
      {
        stage: shot.stage ?? '',
        template: shot.template ?? '',
        take: shot.take,
        priority: shot.priority,
        parameters: shot.parameters,
        inputs: shot.inputs,
        depends_on: undefined,
        seed: shot.seed,
      },
    ];
    for (const st of stages) {
      const errors: string[] = [];
      if (!shot.stages && (!shot.stage || !shot.template)) {
        errors.push(`shots[${index}]: give "stage" and "template", or a "stages" list`);
      }
      const priority = st.priority ?? shot.priority ?? listPriority;
      rows.push({
        ...base,
        row: rows.length + 1,
        stage: st.stage,
        template: st.template,
        take: st.take ?? 1,
        priority: (PRIORITIES as readonly string[]).includes(priority) ? priority : 'normal',
        parameters: st.parameters ?? {},
        inputs: st.inputs ?? {},
        dependsOn: st.depends_on ?? null,
        seed: st.seed ?? null,
        errors,
      });
    }
  });
  return { format: 'json', rows, mapping: {} };
}
