/** `shotfarm import FILE [--dry-run]`: preview every row, then store all valid rows in one transaction. */
import { Option, type Command } from 'commander';
import { readFile, stat } from 'node:fs/promises';
import { checkShotListSize } from '../engine/intake/text-check.js';
import { basename, dirname, resolve } from 'node:path';
import type { ImportPreview } from '../../shared/domain.js';
import { ShotfarmError } from '../../shared/errors.js';
import { isPriority, PRIORITIES } from '../../shared/priorities.js';
import type { EngineApi, Io, Run } from './context.js';
import { EXIT } from './exit-codes.js';
import { formatTable } from './table.js';
import { printable, terminalJson } from './terminal-text.js';

export interface ImportOptions {
  dryRun?: boolean;
  json?: boolean;
  project?: string;
  episode?: string;
  stage?: string;
  template?: string;
  priority?: string;
  param?: string[];
  due?: string;
}

/** A terminal shows this many rows of a preview; `--json` has them all. */
export const PREVIEW_ROWS = 40;
/** …and this many error lines (each names the file and the row). */
export const PREVIEW_ERRORS = 40;

/**
 * The preview, bounded: the first rows as a table, every row's errors below it up to a limit, and
 * the counts — a 130,000-row list prints a screenful, not 130,000 lines, and as fast as a short one.
 */
export function printPreview(io: Io, p: ImportPreview): void {
  if (Object.keys(p.mapping).length) {
    io.out(
      `Columns: ${Object.entries(p.mapping)
        .map(([field, col]) => `${field} ← "${col}"`)
        .join(', ')}`,
    );
  }
  const shown = p.rows.slice(0, PREVIEW_ROWS);
  io.out(
    formatTable(
      ['row', 'line', 'shot', 'stage', 'take', 'template', 'priority', 'status', 'notes'],
      shown.map((r) => [
        r.row,
        r.line ?? '',
        `${r.episode}/${r.shot}`,
        r.stage,
        r.take,
        r.template,
        r.priority,
        r.status,
        [
          ...(r.errors.length ? [`${r.errors.length} error${r.errors.length === 1 ? '' : 's'} (below)`] : []),
          ...r.warnings,
        ].join('; '),
      ]),
      90,
    ),
  );
  if (p.rows.length > shown.length)
    io.out(`… and ${p.rows.length - shown.length} more row(s) (--json lists them all).`);
  let printed = 0;
  let more = 0;
  for (const r of p.rows) {
    if (!r.errors.length) continue;
    if (printed >= PREVIEW_ERRORS) {
      more++;
      continue;
    }
    for (const e of r.errors) io.out(`  ${printable(e)}`);
    printed++;
  }
  if (more) io.out(`  … and ${more} more row(s) with errors (--json lists them all).`);
  for (const n of p.notices) io.out(`Note: ${n}`);
  io.out(`${p.counts.new} new, ${p.counts.duplicate} already imported, ${p.counts.error} with errors.`);
}

export async function runImport(engine: EngineApi, io: Io, file: string, o: ImportOptions): Promise<number> {
  const path = resolve(file);
  let content: string;
  try {
    // Never read a huge file whole just to refuse it.
    checkShotListSize(basename(path), (await stat(path)).size);
    content = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof ShotfarmError) throw err;
    throw new ShotfarmError(
      'bad_input',
      `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`,
    );
  }
  if (o.priority !== undefined && !isPriority(o.priority))
    throw new ShotfarmError('bad_input', '--priority must be rush, high, normal or low.');
  const parameters: Record<string, string> = {};
  for (const pair of o.param ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ShotfarmError('bad_input', `--param takes NAME=COLUMN, got "${pair}".`);
    parameters[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const preview = await engine.call('import.preview', {
    fileName: basename(path),
    content,
    baseDir: dirname(path),
    mapping: {
      project: o.project,
      episode: o.episode,
      stage: o.stage,
      template: o.template,
      priority: o.priority as 'rush' | 'high' | 'normal' | 'low' | undefined,
      parameters: Object.keys(parameters).length ? parameters : undefined,
    },
    ...(o.due !== undefined ? { due: o.due } : {}),
  });
  if (o.dryRun) {
    if (o.json) io.out(terminalJson(preview));
    else {
      printPreview(io, preview);
      io.out('Dry run: nothing was stored.');
    }
    return preview.counts.error ? EXIT.badInput : EXIT.ok;
  }
  if (!o.json) printPreview(io, preview);
  const result = await engine.call('import.commit', { previewId: preview.previewId });
  if (o.json) io.out(terminalJson({ preview, result }));
  else if (result.imported === 0 && result.duplicates + preview.counts.duplicate > 0 && preview.counts.error === 0) {
    io.out('Nothing new: every row was already imported.');
  } else {
    io.out(
      `Imported ${result.imported} job(s); ${preview.counts.duplicate + result.duplicates} already imported; ${preview.counts.error} row(s) rejected.`,
    );
  }
  return preview.counts.error ? EXIT.badInput : EXIT.ok;
}

export function registerImport(program: Command, io: Io, run: Run): void {
  program
    .command('import')
    .description('import a shot list (JSON or CSV): preview every row, then store the valid ones')
    .argument('<file>', 'shot_list.json or a CSV export (Kitsu, ShotGrid or Shotfarm columns)')
    .option('--dry-run', 'show the preview only; store nothing')
    .option('--project <name>', 'CSV: project when the file has no project column')
    .option('--episode <name>', 'CSV: episode when the file has no episode column')
    .option('--stage <name>', 'CSV: stage when the file has no stage column')
    .option('--template <name>', 'CSV: template when the file has no template column')
    .addOption(
      new Option('--priority <p>', 'CSV: priority when the file has no priority column').choices([...PRIORITIES]),
    )
    .option('--param <name=column...>', 'CSV: feed template parameter NAME from COLUMN (repeatable)')
    .option('--due <time>', 'when these jobs should be done (2026-12-05T09:00), unless a row says')
    .action((file: string, o) => run((e, g) => runImport(e, io, file, { ...o, json: g.json })));
}
