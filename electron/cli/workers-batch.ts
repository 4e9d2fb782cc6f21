/**
 * `shotfarm workers add URL…` (several URLs, ranges such as http://gpu-[01-40]:8188) and
 * `shotfarm workers import FILE` (CSV or JSON: name, url, tags, vram, concurrency; any other file
 * one `[NAME] URL [TAGS]` per line): every problem named by its line or argument, nothing stored
 * unless the whole list is right (instances.addMany), then what probing each one found.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ShotfarmError } from '../../shared/errors.js';
import {
  entriesOfRecords,
  parseWorkstationJson,
  parseWorkstationList,
  problemLines,
  type BatchDefaults,
  type BatchParse,
  type BatchProblem,
  type WorkstationBatchResult,
} from '../../shared/workstation-batch.js';
import { printJson, type EngineApi, type GlobalOptions, type Io } from './context.js';

/** A workstation list is a few hundred lines: a bigger file is not one. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A CSV file with a header row (name,url,tags,vram,concurrency); each row named by its line. */
export function parseWorkstationCsv(text: string, defaults: BatchDefaults = {}): BatchParse {
  let rows: { record: Record<string, string>; info: { lines: number } }[];
  try {
    rows = parse(text, {
      columns: (h: string[]) => h.map((c) => c.trim()),
      info: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
      comment: '#',
    });
  } catch (err) {
    return {
      entries: [],
      problems: [{ source: 'the file', message: `is not readable CSV (${(err as Error).message.slice(0, 200)})` }],
    };
  }
  return entriesOfRecords(
    rows.map((r) => ({ source: `line ${r.info.lines}`, record: r.record })),
    defaults,
  );
}

/** The list in a file, by its kind: .csv, .json, or one workstation per line. */
export async function readWorkstationFile(file: string, defaults: BatchDefaults): Promise<BatchParse> {
  let text: string;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_FILE_BYTES)
      throw new ShotfarmError(
        'bad_input',
        `${file} is ${(size / 1e6).toFixed(1)} MB; a workstation list is at most ${MAX_FILE_BYTES / 1024 / 1024} MB.`,
      );
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof ShotfarmError) throw err;
    throw new ShotfarmError(
      'bad_input',
      `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`,
    );
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return parseWorkstationCsv(text, defaults);
  if (ext === '.json') return parseWorkstationJson(text, defaults);
  return parseWorkstationList(text.split(/\r?\n/), 'line', defaults);
}

/** The URLs of `workers add` (each may be a range). */
export function parseUrlArguments(urls: readonly string[], defaults: BatchDefaults): BatchParse {
  return entriesOfRecords(
    urls.map((url, i) => ({ source: `argument ${i + 1}`, record: { url } })),
    defaults,
  );
}

function refusal(where: string, problems: readonly BatchProblem[]): ShotfarmError {
  const lines = problemLines(problems);
  return new ShotfarmError(
    'bad_input',
    [`No workstation was added: ${lines.length} problem(s) in ${where}:`, ...lines.map((l) => `  ${l}`)].join('\n'),
    {
      details: { problems },
    },
  );
}

/** The engine's problems (a name or URL taken) in the same form: every one on its own line. */
function engineRefusal(where: string, err: unknown): unknown {
  if (!(err instanceof ShotfarmError) || !Array.isArray(err.details?.problems)) return err;
  return refusal(where, err.details.problems as BatchProblem[]);
}

/** Sends a parsed list (or refuses it with every problem) and prints what was added and what answered. */
export async function addBatch(
  e: EngineApi,
  io: Io,
  g: GlobalOptions,
  where: string,
  parsed: BatchParse,
): Promise<void> {
  if (parsed.problems.length) throw refusal(where, parsed.problems);
  let r: WorkstationBatchResult;
  try {
    r = await e.call('instances.addMany', { workstations: parsed.entries });
  } catch (err) {
    throw engineRefusal(where, err);
  }
  if (g.json) return printJson(io, r);
  const silent = r.instances.filter((i) => !i.healthy);
  io.out(
    `Added ${r.added} workstation(s): ${r.healthy} answered as ComfyUI${silent.length ? `, ${silent.length} did not (they stay registered):` : '.'}`,
  );
  for (const i of silent) io.out(`  ${i.name}  ${i.url}  ${i.error ?? ''}`);
  io.out('Check them again with: shotfarm health');
}
