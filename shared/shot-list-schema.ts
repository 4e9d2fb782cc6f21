/**
 * The JSON shot list (`shot_list.json`, SPEC §7) and the template file format, as schemas.
 * Both arrive from outside (files, the network), so both are validated before anything reads them.
 */
import { z } from 'zod';
import { portableNameProblem } from './portable-name.js';
import { PRIORITIES } from './priorities.js';

/** Names used in paths and ids: no slashes, no control characters, not "." or "..". */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(120, 'must be at most 120 characters')
  .refine(
    (s) => !/[\\/\u0000-\u001f]/.test(s) && s !== '.' && s !== '..',
    'must not contain slashes or control characters',
  );

/**
 * A name that becomes a folder of the output path (project, episode, shot, stage): the portable-name
 * rule (shared/portable-name.ts), the same for JSON and CSV shot lists.
 */
export function portableNameSchema(what: string) {
  return z
    .string()
    .trim()
    .superRefine((s, ctx) => {
      const problem = portableNameProblem(s, what);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/** The highest take a shot list may name: takes are counted one by one, never this far. */
export const MAX_TAKE = 1_000_000;
/** A take: a whole number from 1 (JSON numbers only; the CSV reader parses digits itself). */
export const takeSchema = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(MAX_TAKE, `must be at most ${MAX_TAKE}`);

export const paramValueSchema = z.union([z.string(), z.number(), z.boolean()]);
export type ParamValue = z.infer<typeof paramValueSchema>;

export const stageEntrySchema = z.strictObject({
  stage: portableNameSchema('stage'),
  template: nameSchema,
  take: takeSchema.optional(),
  priority: z.enum(PRIORITIES).optional(),
  parameters: z.record(z.string(), paramValueSchema).optional(),
  /** Parameter name → input file path, relative to the shot list's folder (never absolute, never `..`). */
  inputs: z.record(z.string(), z.string().min(1)).optional(),
  /** Another stage of the same shot whose completion this one waits for. */
  depends_on: portableNameSchema('depends_on').optional(),
  /** Pin the seed; otherwise each take draws its own. */
  seed: z.number().int().min(0).optional(),
  /** When this stage should be done: "2026-12-05T09:00" (shared/forecast.ts parseDue). */
  due: z.string().optional(),
});

export const shotEntrySchema = z.strictObject({
  id: portableNameSchema('shot'),
  description: z.string().optional(),
  priority: z.enum(PRIORITIES).optional(),
  /** One stage written inline… */
  stage: portableNameSchema('stage').optional(),
  template: nameSchema.optional(),
  take: takeSchema.optional(),
  parameters: z.record(z.string(), paramValueSchema).optional(),
  inputs: z.record(z.string(), z.string().min(1)).optional(),
  seed: z.number().int().min(0).optional(),
  /** When the shot should be done (its stages inherit it). */
  due: z.string().optional(),
  /** …or several. */
  stages: z.array(stageEntrySchema).min(1).optional(),
});

/** One stage of a shot, as the schema returns it. */
export type StageEntry = z.infer<typeof stageEntrySchema>;
/** One shot of a shot list, as the schema returns it. */
export type ShotEntry = z.infer<typeof shotEntrySchema>;

export const shotListSchema = z.strictObject({
  project: portableNameSchema('project'),
  episode: portableNameSchema('episode'),
  priority: z.enum(PRIORITIES).optional(),
  /** When the list's shots should be done, unless a shot or stage says otherwise. */
  due: z.string().optional(),
  shots: z.array(shotEntrySchema),
});
export type ShotList = z.infer<typeof shotListSchema>;

/** A parameter path in a template: `nodeId.inputName`. */
export const paramPathSchema = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'must be "nodeId.inputName", e.g. "3.seed"');

/** A template file (resources/templates/*.json). `workflow` must be ComfyUI's API format. */
export const templateFileSchema = z.strictObject({
  name: nameSchema,
  stage: nameSchema,
  description: z.string().optional(),
  vram_gb: z.number().positive().max(1024).optional(),
  tags: z.array(z.string().min(1)).optional(),
  timeout_s: z.number().int().positive().optional(),
  /** Parameter name → `nodeId.inputName`. */
  parameters: z.record(z.string().min(1), paramPathSchema),
  workflow: z.record(z.string(), z.unknown()),
});
export type TemplateFile = z.infer<typeof templateFileSchema>;

/** Formats zod issues as "path: message" lines a person can act on. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
    return `${path}: ${issue.message}`;
  });
}
