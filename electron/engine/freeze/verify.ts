/**
 * `verify`: re-hashes every file a release manifest lists and reports what is missing or changed.
 * Reads the JSON or the CSV manifest (a vendor may have kept only one), validating it first: a
 * manifest is a file from outside and may have been edited or truncated.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { ShotfarmError } from '../../../shared/errors.js';
import { describeIssues } from '../../../shared/shot-list-schema.js';
import { checkFiles, type FileCheck } from './file-check.js';
import { fileLocation, manifestFileSchema, manifestSchema } from './manifest.js';

export interface VerifyOptions {
  /** Read each file at `<root>/<relative path>` instead of its recorded absolute path (a copied delivery). */
  root?: string;
}

export interface VerifyReport extends FileCheck {
  manifest: string;
  format: 'json' | 'csv';
  project: string | null;
  episode: string | null;
}

interface Entry {
  path: string;
  absolute_path: string;
  sha256: string;
}

/** What verify needs from a CSV row; the other columns are for people. */
const csvRowSchema = manifestFileSchema.pick({ path: true, absolute_path: true, sha256: true }).extend({
  project: z.string().optional(),
  episode: z.string().optional(),
});

/** The export neutralised cells a spreadsheet would run (`'=…`); paths must be read back exactly. */
function unneutralise(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

function invalid(path: string, why: string): ShotfarmError {
  return new ShotfarmError('bad_input', `${path} is not a Shotfarm release manifest: ${why}`);
}

function readJson(path: string, text: string): { entries: Entry[]; project: string; episode: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid(path, `the JSON does not parse (${(err as Error).message}).`);
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) throw invalid(path, describeIssues(parsed.error).slice(0, 5).join('; '));
  return { entries: parsed.data.files, project: parsed.data.project, episode: parsed.data.episode };
}

function readCsv(path: string, text: string): { entries: Entry[]; project: string | null; episode: string | null } {
  let records: Record<string, string>[];
  try {
    records = parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Record<string, string>[];
  } catch (err) {
    throw invalid(path, `the CSV does not parse (${(err as Error).message}).`);
  }
  const entries: Entry[] = [];
  let project: string | null = null;
  let episode: string | null = null;
  for (const [i, rec] of records.entries()) {
    const row = Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, unneutralise(v)]));
    const parsed = csvRowSchema.safeParse(row);
    // Row numbers as a spreadsheet shows them: the header is row 1.
    if (!parsed.success) throw invalid(path, `row ${i + 2}: ${describeIssues(parsed.error).join('; ')}`);
    project ??= parsed.data.project ?? null;
    episode ??= parsed.data.episode ?? null;
    entries.push(parsed.data);
  }
  return { entries, project, episode };
}

export async function verifyManifest(manifestPath: string, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const path = resolve(manifestPath);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ShotfarmError('not_found', `The manifest ${path} does not exist.`);
    throw new ShotfarmError('storage', `The manifest ${path} cannot be read: ${(err as Error).message}`);
  }
  const isJson =
    /\.json$/i.test(path) ||
    text
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('{');
  const read = isJson ? readJson(path, text) : readCsv(path, text);
  const root = opts.root === undefined ? undefined : resolve(opts.root);
  const check = await checkFiles(read.entries.map((e) => ({ path: fileLocation(e, root), sha256: e.sha256 })));
  return { manifest: path, format: isJson ? 'json' : 'csv', project: read.project, episode: read.episode, ...check };
}

/** True when every listed file is present and matches. */
export function verifyPassed(r: FileCheck): boolean {
  return r.ok === r.checked;
}
