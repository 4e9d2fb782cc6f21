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
    const re = new RegExp(`"id"\\s*:\\s*${JSON.stringify(shotId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
    re.lastIndex = this.pos;
    const m = re.exec(this.content);
    if (!m) return null;
    for (let i = this.pos; i < m.index; i++) if (this.content.charCodeAt(i) === 10) this.line++;
    const at = this.line;
    // Move past this match (two shots may share an id; the second must find the second occurrence).
    const end = m.index + m[0].length;
    for (let i = m.index; i < end; i++) if (this.content.charCodeAt(i) === 10) this.line++;
    this.pos = end;
    return at;
  }
}

export function readJsonShotList(content: string, fileName: string): ReadResult {
  const raw = parseJsonText(content, fileName);
  const top = topLevel.safeParse(raw);
  if (!top.success) {
    throw new ShotfarmError('bad_input', `${fileName} is not a valid shot list:\n  ${describeIssues(top.error).join('\n  ')}`);
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
        ...base, row: rows.length + 1, stage: '', template: '', take: 1, priority: listPriority,
        parameters: {}, inputs: {}, dependsOn: null, seed: null,
        errors: describeIssues(parsed.error).map((m) => `shots[${index}].${m}`),
      });
      return;
    }
    const shot = parsed.data;
    base.description = shot.description ?? null;
    const stages = shot.stages ?? [
      {
        stage: shot.stage ?? '', template: shot.template ?? '', take: shot.take, priority: shot.priority,
        parameters: shot.parameters, inputs: shot.inputs, depends_on: undefined, seed: shot.seed,
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
