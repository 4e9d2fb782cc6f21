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

/** Finds the line of `"id": "<shot>"` so row errors can point into the file. */
function lineOfShot(content: string, shotId: unknown, from: number): { line: number | null; next: number } {
  if (typeof shotId !== 'string') return { line: null, next: from };
  const re = new RegExp(`"id"\\s*:\\s*${JSON.stringify(shotId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
  re.lastIndex = from;
  const m = re.exec(content);
  if (!m) return { line: null, next: from };
  return { line: content.slice(0, m.index).split('\n').length, next: m.index + 1 };
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
  let cursor = 0;
  top.data.shots.forEach((rawShot, index) => {
    const id = (rawShot as { id?: unknown } | null)?.id;
    const located = lineOfShot(content, id, cursor);
    cursor = located.next;
    const parsed = shotEntrySchema.safeParse(rawShot);
    const base = {
      line: located.line,
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
