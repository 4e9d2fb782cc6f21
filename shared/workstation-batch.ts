/**
 * Registering many workstations at once (`workers add URL…`, `workers import FILE`, a list pasted
 * into the Workstations view): the entries of a list, each named by where it came from ("line 4"),
 * so every problem in a file is reported at once with its line and nothing is stored until none is
 * left (instances.addMany stores them all in one transaction). Pure and page-safe: the CLI reads CSV
 * with csv-parse and hands the records here; the page sends what it parsed; the engine names the
 * entries that have no name from their hosts (it knows the names already taken).
 *
 * A list line is `[NAME] URL [TAGS]`, blanks between; TAGS comma-separated; `#` starts a comment.
 * A URL may hold ranges: `http://gpu-[01-40]:8188` is gpu-01 … gpu-40 (a leading zero pads).
 */
import { nameSchema } from './shot-list-schema.js';
import { httpUrlSchema } from './url.js';
import { parseDecimal } from './decimal-text.js';

/** One workstation to register, as the contract takes it (instances.addMany). */
export interface WorkstationEntry {
  /** Where it came from, for messages: "line 4", "argument 2", "line 4, http://gpu-07:8188". */
  source: string;
  /** Absent: made from the URL's host (nameFromHost). */
  name?: string;
  url: string;
  tags?: string[];
  maxConcurrency?: number;
  vramOverrides?: Record<string, number>;
}

/** What is wrong, and where. */
export interface BatchProblem {
  source: string;
  message: string;
}

export interface BatchParse {
  entries: WorkstationEntry[];
  problems: BatchProblem[];
}

/** At most this many workstations in one call (a range included): a studio's farm, not a typo's 10,000. */
export const MAX_BATCH = 1_000;
/** The columns a CSV or JSON file may have (and the names they are also known by). */
export const BATCH_FIELDS = ['name', 'url', 'tags', 'vram', 'concurrency'] as const;
const FIELD_ALIASES: Readonly<Record<string, (typeof BATCH_FIELDS)[number]>> = {
  name: 'name',
  url: 'url',
  tags: 'tags',
  vram: 'vram',
  vram_overrides: 'vram',
  vramoverrides: 'vram',
  concurrency: 'concurrency',
  max_concurrency: 'concurrency',
  maxconcurrency: 'concurrency',
};

const urlCheck = httpUrlSchema('http://gpu-01:8188');
const RANGE = /\[(\d{1,6})-(\d{1,6})\]/g;

/**
 * Every URL a range stands for, in order (`http://gpu-[01-03]:8188` → gpu-01, gpu-02, gpu-03), or
 * the words for what is wrong with the range. A URL without a range is itself. Several ranges
 * multiply (`10.0.[1-2].[10-11]` is four URLs).
 */
export function expandRanges(url: string): { urls: string[] } | { problem: string } {
  const ranges = [...url.matchAll(RANGE)];
  if (ranges.length === 0) return { urls: [url] };
  let total = 1;
  for (const m of ranges) {
    const [whole, a = '', b = ''] = m;
    const from = Number(a);
    const to = Number(b);
    if (from > to) return { problem: `the range ${whole} counts down; write it from low to high, e.g. [${b}-${a}]` };
    total *= to - from + 1;
    if (total > MAX_BATCH) return { problem: `${url} stands for more than ${MAX_BATCH} workstations` };
  }
  let urls = [''];
  let at = 0;
  for (const m of ranges) {
    const [whole, a = '', b = ''] = m;
    const index = m.index ?? 0;
    const text = url.slice(at, index);
    // A leading zero pads every number to the width of the first: [01-40] → 01 … 40; [1-40] → 1 … 40.
    const width = a.length > 1 && a.startsWith('0') ? a.length : 0;
    const next: string[] = [];
    for (const prefix of urls) {
      for (let n = Number(a); n <= Number(b); n++) next.push(`${prefix}${text}${String(n).padStart(width, '0')}`);
    }
    urls = next;
    at = index + whole.length;
  }
  return { urls: urls.map((u) => u + url.slice(at)) };
}

/** A name from a URL's host: the first label of a host name (gpu-07.render.lan → gpu-07), an address whole. */
export function nameFromHost(url: string): string {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const isAddress = /^[\d.]+$/.test(host) || host.includes(':');
  return isAddress ? host : (host.split('.')[0] ?? host);
}

/** The URL's port, or its scheme's (a second name for a second server on one host). */
function portOf(url: string): string {
  const u = new URL(url);
  return u.port || (u.protocol === 'https:' ? '443' : '80');
}

/**
 * Names for the entries without one: the host's name, or `host-port` when that is taken (by a
 * workstation already registered or another entry) or the host comes more than once (one ComfyUI
 * per GPU). Given names must be unique too. Every clash is a problem at its entry.
 */
export function nameEntries(
  entries: readonly WorkstationEntry[],
  taken: ReadonlySet<string>,
): { entries: (WorkstationEntry & { name: string })[]; problems: BatchProblem[] } {
  const problems: BatchProblem[] = [];
  const used = new Map<string, string>();
  for (const e of entries) {
    if (e.name === undefined) continue;
    if (taken.has(e.name)) problems.push({ source: e.source, message: `a workstation is already named "${e.name}"` });
    else if (used.has(e.name))
      problems.push({ source: e.source, message: `the name "${e.name}" is also on ${used.get(e.name)}` });
    used.set(e.name, used.get(e.name) ?? e.source);
  }
  const hostCount = new Map<string, number>();
  for (const e of entries)
    if (e.name === undefined) hostCount.set(nameFromHost(e.url), (hostCount.get(nameFromHost(e.url)) ?? 0) + 1);
  const named = entries.map((e) => {
    if (e.name !== undefined) return { ...e, name: e.name };
    const host = nameFromHost(e.url);
    const free = (n: string): boolean => !taken.has(n) && !used.has(n);
    const name = (hostCount.get(host) ?? 0) === 1 && free(host) ? host : `${host}-${portOf(e.url)}`;
    if (!free(name)) {
      problems.push({
        source: e.source,
        message: `the name "${name}" made from its host is taken by ${taken.has(name) ? 'a registered workstation' : used.get(name)}; give this one a name`,
      });
    }
    used.set(name, used.get(name) ?? e.source);
    return { ...e, name };
  });
  return { entries: named, problems };
}

/** The problem with a URL, or null. */
function urlProblem(url: string): string | null {
  const r = urlCheck.safeParse(url);
  return r.success
    ? null
    : `the URL ${JSON.stringify(url.slice(0, 200))} ${r.error.issues[0]?.message ?? 'is not valid'}`;
}

function nameProblem(name: string): string | null {
  const r = nameSchema.safeParse(name);
  return r.success
    ? null
    : `the name ${JSON.stringify(name.slice(0, 200))} ${r.error.issues[0]?.message ?? 'is not valid'}`;
}

/** Tags as a file or a line writes them: "a,b" / "a;b" / "a b", or a JSON array of words. */
function readTags(raw: unknown): string[] | string {
  if (raw === undefined || raw === null || raw === '') return [];
  const list =
    typeof raw === 'string'
      ? raw.split(/[,;\s]+/)
      : Array.isArray(raw) && raw.every((t) => typeof t === 'string')
        ? (raw as string[])
        : null;
  if (!list) return 'tags must be words, e.g. "img2img,i2v_video"';
  return list.map((t) => t.trim()).filter(Boolean);
}

/** VRAM overrides: "motion=20;keyframe=12" (CSV, `,` also works) or a JSON object {"motion": 20}. */
function readVram(raw: unknown): Record<string, number> | string {
  if (raw === undefined || raw === null || raw === '') return {};
  const bad = `vram takes STAGE=GB pairs with GB a number above 0, e.g. motion=20;keyframe=12; got ${JSON.stringify(raw).slice(0, 120)}`;
  const pairs: [string, unknown][] =
    typeof raw === 'string'
      ? raw
          .split(/[,;\s]+/)
          .filter(Boolean)
          .map((p) => {
            const eq = p.indexOf('=');
            return eq <= 0 ? ['', null] : [p.slice(0, eq), p.slice(eq + 1)];
          })
      : typeof raw === 'object' && !Array.isArray(raw)
        ? Object.entries(raw as Record<string, unknown>)
        : [['', null]];
  const out: Record<string, number> = {};
  for (const [stage, gb] of pairs) {
    const n =
      typeof gb === 'number'
        ? gb > 0 && Number.isFinite(gb)
          ? gb
          : null
        : typeof gb === 'string'
          ? parseDecimal(gb, { positive: true })
          : null;
    if (!stage.trim() || n === null) return bad;
    out[stage.trim()] = n;
  }
  return out;
}

function readConcurrency(raw: unknown): number | undefined | string {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const rule = { integer: true, min: 1, max: 16 };
  const n =
    typeof raw === 'number'
      ? Number.isInteger(raw) && raw >= 1 && raw <= 16
        ? raw
        : null
      : typeof raw === 'string'
        ? parseDecimal(raw, rule)
        : null;
  return (
    n ?? `concurrency must be a whole number from 1 to 16 (prompts at once); got ${JSON.stringify(raw).slice(0, 60)}`
  );
}

/** The fields every entry of a batch shares (the CLI's --tags, --concurrency, --vram). */
export interface BatchDefaults {
  tags?: string[];
  maxConcurrency?: number;
  vramOverrides?: Record<string, number>;
}

/**
 * One record (a CSV row, a JSON object, a list line's parts) into its entries (a range gives
 * several), or its problems. Unknown fields are problems: a misspelt column would otherwise be lost.
 */
export function entriesOfRecord(
  source: string,
  record: Readonly<Record<string, unknown>>,
  defaults: BatchDefaults = {},
): BatchParse {
  const problems: string[] = [];
  const fields: Partial<Record<(typeof BATCH_FIELDS)[number], unknown>> = {};
  for (const [key, value] of Object.entries(record)) {
    const field = FIELD_ALIASES[key.trim().toLowerCase()];
    if (field) fields[field] = value;
    else problems.push(`unknown field "${key.slice(0, 60)}"; the fields are ${BATCH_FIELDS.join(', ')}`);
  }
  const url = typeof fields.url === 'string' ? fields.url.trim() : '';
  const name = typeof fields.name === 'string' && fields.name.trim() !== '' ? fields.name.trim() : undefined;
  if (fields.name !== undefined && fields.name !== null && typeof fields.name !== 'string')
    problems.push('the name must be text');
  const tags = readTags(fields.tags);
  const vram = readVram(fields.vram);
  const concurrency = readConcurrency(fields.concurrency);
  for (const p of [tags, vram, concurrency]) if (typeof p === 'string') problems.push(p);
  let urls: string[] = [];
  if (!url) problems.push('no URL; each workstation needs its ComfyUI URL, e.g. http://gpu-01:8188');
  else {
    const expanded = expandRanges(url);
    if ('problem' in expanded) problems.push(expanded.problem);
    else urls = expanded.urls;
    if (urls.length > 1 && name !== undefined)
      problems.push(`a range makes one workstation per number, each named from its host; leave the name "${name}" out`);
  }
  if (name !== undefined) {
    const p = nameProblem(name);
    if (p) problems.push(p);
  }
  const bad = urls.map((u) => urlProblem(u)).find((p) => p !== null);
  if (bad) problems.push(bad);
  if (problems.length) return { entries: [], problems: problems.map((message) => ({ source, message })) };
  const shared = {
    tags: [...new Set([...(defaults.tags ?? []), ...(tags as string[])])],
    ...(concurrency !== undefined
      ? { maxConcurrency: concurrency as number }
      : defaults.maxConcurrency !== undefined
        ? { maxConcurrency: defaults.maxConcurrency }
        : {}),
    vramOverrides: { ...defaults.vramOverrides, ...(vram as Record<string, number>) },
  };
  const entries = urls.map((u) => ({
    source: urls.length > 1 ? `${source}, ${u}` : source,
    ...(name !== undefined ? { name } : {}),
    url: u,
    ...shared,
  }));
  return { entries, problems: [] };
}

/** Entries of many records (a record already found wrong is its problem's words), with every problem in order, and the batch's size checked. */
export function entriesOfRecords(
  records: readonly { source: string; record: Readonly<Record<string, unknown>> | string }[],
  defaults: BatchDefaults = {},
): BatchParse {
  const out: BatchParse = { entries: [], problems: [] };
  for (const { source, record } of records) {
    if (typeof record === 'string') {
      out.problems.push({ source, message: record });
      continue;
    }
    const r = entriesOfRecord(source, record, defaults);
    out.entries.push(...r.entries);
    out.problems.push(...r.problems);
  }
  if (records.length === 0) out.problems.push({ source: 'the list', message: 'holds no workstation' });
  if (out.entries.length > MAX_BATCH)
    out.problems.push({
      source: 'the list',
      message: `holds ${out.entries.length} workstations; at most ${MAX_BATCH} at once`,
    });
  return out;
}

/** A list line's parts: `[NAME] URL [TAGS]`, or a problem. */
function lineRecord(line: string): Record<string, unknown> | string {
  const words = line
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/,$/, ''));
  const at = words.findIndex((w) => w.includes('://'));
  if (at < 0)
    return `no URL in "${line.slice(0, 120)}"; write [NAME] URL [TAGS], e.g. gpu-01 http://10.0.0.21:8188 img2img`;
  if (at > 1)
    return `"${words.slice(0, at).join(' ')}" is more than one name; write [NAME] URL [TAGS] (a name has no spaces)`;
  return { ...(at === 1 ? { name: words[0] } : {}), url: words[at], tags: words.slice(at + 1).join(',') };
}

/**
 * A pasted list or the CLI's arguments: one workstation (or range) per item, `[NAME] URL [TAGS]`.
 * `word` names an item in messages ("line", "argument"); blank items and `#` comments are skipped.
 */
export function parseWorkstationList(
  items: readonly string[],
  word = 'line',
  defaults: BatchDefaults = {},
): BatchParse {
  const records: { source: string; record: Record<string, unknown> | string }[] = [];
  items.forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line) records.push({ source: `${word} ${i + 1}`, record: lineRecord(line) });
  });
  return entriesOfRecords(records, defaults);
}

/** The line each element of the workstations array starts on (a top-level array at depth 1, or `{"workstations": [...]}` at 2). */
function elementLines(text: string, depth: number): number[] {
  const lines: number[] = [];
  let line = 1;
  let level = 0;
  let inString = false;
  // At the array's own level, right after its `[` or a `,`: the next character starts an element.
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (expecting && level === depth && !/[\s,\]]/.test(c)) {
      lines.push(line);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      level++;
      if (c === '[' && level === depth) expecting = true;
    } else if (c === '}' || c === ']') level--;
    else if (c === ',' && level === depth) expecting = true;
  }
  return lines;
}

/** A JSON file: an array of {name?, url, tags?, vram?, concurrency?}, or {"workstations": that array}. */
export function parseWorkstationJson(text: string, defaults: BatchDefaults = {}): BatchParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return {
      entries: [],
      problems: [{ source: 'the file', message: `is not valid JSON (${(err as Error).message.slice(0, 200)})` }],
    };
  }
  const wrapped = typeof value === 'object' && value !== null && !Array.isArray(value);
  const list = wrapped ? (value as Record<string, unknown>).workstations : value;
  if (!Array.isArray(list) || (wrapped && Object.keys(value as object).length !== 1)) {
    return {
      entries: [],
      problems: [
        {
          source: 'the file',
          message:
            'must be a JSON array of workstations ({"name": "gpu-01", "url": "http://gpu-01:8188"}), or {"workstations": that array}',
        },
      ],
    };
  }
  const lines = elementLines(text, wrapped ? 2 : 1);
  const records = list.map((item: unknown, i) => ({
    source: lines.length === list.length ? `line ${lines[i]}` : `entry ${i + 1}`,
    record:
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? (item as Record<string, unknown>)
        : 'is not an object like {"url": "http://gpu-01:8188"}',
  }));
  return entriesOfRecords(records, defaults);
}

/** Problems as lines a person reads: "line 4: the URL … must be …". */
export function problemLines(problems: readonly BatchProblem[]): string[] {
  return problems.map((p) => `${p.source}: ${p.message}`);
}

/** What instances.addMany answers: how many were added, and what probing each of them found. */
export interface WorkstationBatchResult {
  added: number;
  /** How many answered as a ComfyUI server should (healthy). */
  healthy: number;
  instances: { id: string; name: string; url: string; healthy: boolean; error: string | null }[];
}
