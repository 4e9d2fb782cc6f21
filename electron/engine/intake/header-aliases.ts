/**
 * The CSV header mapping (SPEC §7): which column names of production-tracker exports feed which
 * field. Matching ignores case, spaces, dots, dashes and underscores ("Nb Frames" = "nb_frames").
 * Documented in docs/templates-and-shot-lists.md ("CSV"); keep the two in step.
 */
export const CANONICAL_FIELDS = [
  'project',
  'episode',
  'sequence',
  'shot',
  'description',
  'stage',
  'template',
  'take',
  'priority',
  'frames',
  'frame_in',
  'frame_out',
  'fps',
  'status',
  'cut_order',
  'tracker_id',
  'depends_on',
  'seed',
  'due',
] as const;
export type CanonicalField = (typeof CANONICAL_FIELDS)[number];

/** Canonical field → accepted header names (Shotfarm's own, Kitsu's, ShotGrid/Flow's). */
export const HEADER_ALIASES: Readonly<Record<CanonicalField, readonly string[]>> = {
  project: ['project', 'production', 'project name'],
  episode: ['episode', 'episode name', 'ep'],
  sequence: ['sequence', 'seq', 'sequence name'],
  // Kitsu calls the shot "Name"; ShotGrid "Shot Code" or "Shot".
  shot: ['shot', 'shot code', 'shot name', 'name', 'code'],
  description: ['description', 'desc', 'prompt'],
  stage: ['stage', 'task', 'task type'],
  template: ['template', 'workflow'],
  take: ['take'],
  priority: ['priority'],
  // Kitsu: "Nb Frames" or "Frames"; ShotGrid: "Cut Duration" (frames in the cut).
  frames: ['nb frames', 'frames', 'cut duration', 'duration'],
  frame_in: ['frame in', 'in', 'cut in'],
  frame_out: ['frame out', 'out', 'cut out'],
  fps: ['fps', 'frame rate'],
  status: ['status'],
  cut_order: ['cut order'],
  tracker_id: ['id'],
  depends_on: ['depends on', 'after'],
  seed: ['seed'],
  due: ['due', 'due date', 'deadline'],
};

export function normaliseHeader(h: string): string {
  return h
    .trim()
    .toLowerCase()
    .replace(/[\s._-]+/g, ' ')
    .trim();
}

const lookup = new Map<string, CanonicalField>();
for (const field of CANONICAL_FIELDS) {
  for (const alias of HEADER_ALIASES[field]) lookup.set(normaliseHeader(alias), field);
}

export type ColumnRole =
  | { kind: 'field'; field: CanonicalField }
  | { kind: 'param'; name: string }
  | { kind: 'input'; name: string }
  | { kind: 'metadata'; name: string };

/**
 * What a header means: a canonical field, `param:NAME` / `input:NAME` (Shotfarm's own columns for
 * template parameters and input files), or else tracker metadata kept by its display name
 * (Kitsu custom columns and task-status columns land here).
 */
export function columnRole(header: string): ColumnRole {
  const m = /^(param|input)\s*[:.]\s*(.+)$/i.exec(header.trim());
  if (m) return { kind: (m[1] as string).toLowerCase() === 'param' ? 'param' : 'input', name: (m[2] as string).trim() };
  const field = lookup.get(normaliseHeader(header));
  if (field) return { kind: 'field', field };
  return { kind: 'metadata', name: header.trim() };
}

/** Picks `,` or `;` (Kitsu exports either): the one that occurs more often outside quotes in the header line. */
export function sniffDelimiter(text: string): ',' | ';' {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  let commas = 0;
  let semis = 0;
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semis++;
  }
  return semis > commas ? ';' : ',';
}
