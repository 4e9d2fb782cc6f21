// Real output files — PNGs for SaveImage/PreviewImage, and whatever bytes another saver hands over
// (SaveAnimatedWEBP) — under ComfyUI's naming `{prefix}_{counter:05}_.{ext}`, the counter
// continuing from the highest file already in the folder, and the file rules of /view and
// /upload/image (comfyui-protocol.md §9).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { PNG } from 'pngjs';

export interface ImageDirs {
  output: string;
  input: string;
  temp: string;
  /** PreviewImage results, kept in memory instead of files under `temp` (see PreviewStore). */
  previews: PreviewStore;
}

/**
 * PreviewImage's files, held in memory by full path and served by /view as if they were in the
 * temp folder. ComfyUI writes them to disk and empties the folder at its next start; creating one
 * file per preview made the file system the simulator's limit (a file creation costs more than the
 * rest of a zero-work prompt). Bounded: the oldest previews are forgotten first (404 afterwards).
 */
export class PreviewStore {
  private readonly files = new Map<string, Buffer>();
  constructor(private readonly limit = 4096) {}

  put(path: string, body: Buffer): void {
    this.files.set(path, body);
    if (this.files.size > this.limit) this.files.delete(this.files.keys().next().value as string);
  }

  get(path: string): Buffer | undefined {
    return this.files.get(path);
  }
}

/** Largest side we actually render; the graph may ask for more, the file just stays cheap. */
const MAX_SIDE = 2048;

export interface ImageRef {
  filename: string;
  subfolder: string;
  type: 'output' | 'temp';
}

/** Folders already created by this process (a mkdir per save is a syscall per prompt). */
const madeDirs = new Set<string>();

/**
 * Writes one output file under ComfyUI's name for it (`{prefix}_{counter:05}_.{ext}`). The file is
 * written asynchronously (the thread pool, not the event loop: a synchronous open per save made
 * file creation the simulator's bottleneck); the counter is taken synchronously first, so
 * concurrent saves never share a name. `temp` files go to the in-memory preview store.
 */
export async function writeOutput(
  dirs: ImageDirs,
  kind: 'output' | 'temp',
  prefix: string,
  ext: string,
  bytes: Buffer,
): Promise<ImageRef> {
  const base = kind === 'output' ? dirs.output : dirs.temp;
  const cleanPrefix = prefix.replace(/\\/g, '/');
  const slash = cleanPrefix.lastIndexOf('/');
  const subfolder = slash >= 0 ? cleanPrefix.slice(0, slash) : '';
  const name = slash >= 0 ? cleanPrefix.slice(slash + 1) : cleanPrefix;
  const dir = resolve(base, subfolder);
  // ComfyUI refuses prefixes that escape the output folder; we fall back to the root.
  const safeDir = relative(base, dir).startsWith('..') ? base : dir;
  if (!madeDirs.has(safeDir)) {
    mkdirSync(safeDir, { recursive: true });
    madeDirs.add(safeDir);
  }
  const counter = nextCounter(safeDir, name);
  const filename = `${name}_${String(counter).padStart(5, '0')}_.${ext}`;
  const ref: ImageRef = { filename, subfolder: safeDir === base ? '' : subfolder, type: kind };
  if (kind === 'temp') {
    dirs.previews.put(join(safeDir, filename), bytes);
    return ref;
  }
  try {
    await writeFile(join(safeDir, filename), bytes);
  } catch (err) {
    // The folder went away (removed by a test between two simulators): make it again, once.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(safeDir, { recursive: true });
    await writeFile(join(safeDir, filename), bytes);
  }
  return ref;
}

/** Writes one PNG whose pixels derive from `signature`, so different inputs give different files. */
export function saveImage(
  dirs: ImageDirs,
  kind: 'output' | 'temp',
  prefix: string,
  width: number,
  height: number,
  signature: string,
): Promise<ImageRef> {
  return writeOutput(dirs, kind, prefix, 'png', renderPng(width, height, signature));
}

/**
 * ComfyUI's counter: one above the highest `<name>_NNNNN_.<ext>` in the folder (any extension,
 * as `get_save_image_path` compares names only). Each folder is
 * scanned once into an index of name → highest counter, then kept up to date in memory: scanning
 * a growing folder on every save (previews get a new prefix per prompt) made the simulator
 * itself the bottleneck of throughput benchmarks.
 */
const counterIndex = new Map<string, Map<string, number>>();
const SAVED_NAME = /^(.*)_(\d+)_\.[A-Za-z0-9]+$/;

function nextCounter(dir: string, name: string): number {
  let index = counterIndex.get(dir);
  if (!index) {
    index = new Map();
    for (const f of readdirSync(dir)) {
      const m = SAVED_NAME.exec(f);
      if (m) index.set(m[1] as string, Math.max(index.get(m[1] as string) ?? 0, Number(m[2])));
    }
    counterIndex.set(dir, index);
  }
  const next = (index.get(name) ?? 0) + 1;
  index.set(name, next);
  return next;
}

export function renderPng(width: number, height: number, signature: string): Buffer {
  const w = Math.max(1, Math.min(MAX_SIDE, Math.round(width)));
  const h = Math.max(1, Math.min(MAX_SIDE, Math.round(height)));
  const seed = createHash('sha256').update(signature).digest();
  const png = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      // A seed-coloured diagonal gradient: cheap, compressible, and unique per signature.
      png.data[i] = (seed[0]! + (x * 255) / w) & 255;
      png.data[i + 1] = (seed[1]! + (y * 255) / h) & 255;
      png.data[i + 2] = (seed[2]! + ((x + y) * 127) / (w + h)) & 255;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

export type ViewResult =
  | { status: 200; body: Buffer; contentType: string; filename: string }
  | { status: 400 | 403 | 404 };

/** `GET /view` as in server.py: 400 for `..`/absolute names or a bad type, 403 for an escaping subfolder, 404 otherwise. */
export function viewFile(dirs: ImageDirs, query: URLSearchParams): ViewResult {
  let filename = query.get('filename');
  if (filename === null) return { status: 404 };
  let dir: string | undefined;
  for (const t of ['output', 'input', 'temp'] as const) {
    const suffix = ` [${t}]`;
    if (filename.endsWith(suffix)) {
      filename = filename.slice(0, -suffix.length);
      dir = dirs[t];
    }
  }
  if (!filename) return { status: 400 };
  if (filename.startsWith('/') || filename.includes('..')) return { status: 400 };
  if (dir === undefined) {
    const type = query.get('type') ?? 'output';
    if (type !== 'output' && type !== 'input' && type !== 'temp') return { status: 400 };
    dir = dirs[type];
  }
  const sub = query.get('subfolder');
  if (sub !== null) {
    const full = resolve(dir, sub);
    if (full !== dir && !full.startsWith(`${dir}/`)) return { status: 403 };
    dir = full;
  }
  const file = join(dir, basename(filename));
  const preview = dirs.previews.get(file);
  if (!preview && (!existsSync(file) || !statSync(file).isFile())) return { status: 404 };
  let body: Buffer = preview ?? readFileSync(file);
  const ext = file.slice(file.lastIndexOf('.') + 1).toLowerCase();
  let contentType =
    ext === 'png'
      ? 'image/png'
      : ext === 'jpg' || ext === 'jpeg'
        ? 'image/jpeg'
        : ext === 'webp'
          ? 'image/webp'
          : 'application/octet-stream';
  const channel = query.get('channel');
  if (ext === 'png' && (channel === 'rgb' || channel === 'a')) {
    body = reChannel(body, channel);
    contentType = 'image/png';
  }
  return { status: 200, body, contentType, filename: basename(filename) };
}

/** `channel=rgb` drops alpha; `channel=a` turns alpha into a grey image (ComfyUI returns PNG for both). */
function reChannel(buf: Buffer, channel: 'rgb' | 'a'): Buffer {
  const src = PNG.sync.read(buf);
  const out = new PNG({ width: src.width, height: src.height });
  for (let i = 0; i < src.data.length; i += 4) {
    const a = src.data[i + 3]!;
    out.data[i] = channel === 'a' ? a : src.data[i]!;
    out.data[i + 1] = channel === 'a' ? a : src.data[i + 1]!;
    out.data[i + 2] = channel === 'a' ? a : src.data[i + 2]!;
    out.data[i + 3] = 255;
  }
  return PNG.sync.write(out, { colorType: 2 });
}

export type UploadResult =
  | { status: 200; json: { name: string; subfolder: string; type: string } }
  | { status: 400 | 500 };

/** `POST /upload/image`: same name + same bytes is reused, different bytes become `name (1).ext`. */
export function storeUpload(
  dirs: ImageDirs,
  file: { name: string; bytes: Buffer } | null,
  type: string | null,
  subfolder: string | null,
  overwrite: string | null,
): UploadResult {
  const t = type ?? 'input';
  if (t !== 'input' && t !== 'temp' && t !== 'output') return { status: 500 };
  if (!file?.name) return { status: 400 };
  const base = dirs[t];
  const sub = subfolder ?? '';
  const dir = resolve(base, sub);
  if (dir !== base && !dir.startsWith(`${base}/`)) return { status: 400 };
  if (file.name.includes('/') || file.name.includes('..') || isAbsolute(file.name)) return { status: 400 };
  mkdirSync(dir, { recursive: true });
  let name = file.name;
  const force = overwrite === 'true' || overwrite === '1';
  if (!force) {
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const ext = dot > 0 ? name.slice(dot) : '';
    for (let i = 1; existsSync(join(dir, name)); i++) {
      if (readFileSync(join(dir, name)).equals(file.bytes)) {
        return { status: 200, json: { name, subfolder: sub, type: t } };
      }
      name = `${stem} (${i})${ext}`;
    }
  }
  writeFileSync(join(dir, name), file.bytes);
  return { status: 200, json: { name, subfolder: sub, type: t } };
}

/** LoadImage's combo: every file under the input folder, as `sub/name` relative paths. */
export function listInputFiles(dirs: ImageDirs): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(relative(dirs.input, full));
    }
  };
  walk(dirs.input);
  return out.sort();
}

/** Dimensions of an input image (LoadImage), or null if it is not a readable PNG. */
export function inputImageSize(dirs: ImageDirs, name: string): { width: number; height: number } | null {
  try {
    const png = PNG.sync.read(readFileSync(join(dirs.input, name)));
    return { width: png.width, height: png.height };
  } catch {
    return null;
  }
}
