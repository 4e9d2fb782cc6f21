// Replays a recorded ComfyUI case (test/fixtures/comfyui-recorded/*.json) against a simulator instance and
// lists every difference: HTTP status, content type and JSON shape per request, and the per-client
// sequence of WebSocket message types.
//
// Synchronisation is derived from the recording itself: before each action (HTTP request, ws
// open/send/close) the replay waits until every client has received as many frames as it had in the
// recording when that action was taken, and at least as many of each milestone frame (execution_start,
// execution_success/_error/_interrupted, executing {node:null}). Ids the server minted are mapped
// recorded ↔ simulator.

import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { renameIds, shapeOf, maskShape, type Shape } from './shape.js';
import { WsClients, type WsFrame } from './ws-clients.js';

export const RECORDINGS_DIR = new URL('../../fixtures/comfyui-recorded/', import.meta.url);

interface Body {
  json?: unknown;
  text?: string;
  binary?: unknown;
}
export interface RecEvent {
  kind: string;
  client?: string;
  t_ms?: number;
  t_sent_ms?: number;
  url?: string;
  message?: WsFrame;
  label?: string;
  request?: { method: string; path: string; headers: Record<string, string>; body: Body | null };
  response?: { status: number; headers: Record<string, string>; body: Body | null };
}
export interface RecordedCase {
  case: string;
  client_ids: Record<string, string>;
  prompts: Record<string, unknown>;
  events: RecEvent[];
}

export function loadCase(name: string): RecordedCase {
  return JSON.parse(readFileSync(new URL(`${name}.json`, RECORDINGS_DIR), 'utf8')) as RecordedCase;
}

export type WsMode = 'exact' | 'status-unordered' | 'collapsed';

export interface ReplayOptions {
  wsMode?: WsMode;
  /** Labels of recorded responses whose history entries (from earlier cases) are re-created first. */
  seedHistoryFrom?: string[];
  /** Extra state to build before the replay (e.g. files an earlier case wrote). */
  setup?: (baseUrl: string) => Promise<void>;
  /** Requests not compared, label → reason (documented differences). */
  skip?: Record<string, string>;
  /** Shape paths replaced before comparing, with the reason in `why`. */
  masks?: Array<{ path: string[]; why: string }>;
  /** Also require the same sequence of saved filenames in `executed` frames (run order). */
  compareFilenames?: boolean;
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  disposition: string | null;
  text: string;
  json: unknown;
}

export async function http(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const res = await request(baseUrl + path, {
    method: method as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const contentType = String(res.headers['content-type'] ?? '');
  let json: unknown;
  if (contentType.startsWith('application/json')) json = JSON.parse(buf.toString('utf8'));
  const disp = res.headers['content-disposition'];
  return {
    status: res.statusCode,
    contentType,
    disposition: typeof disp === 'string' ? disp : null,
    text: contentType.startsWith('image/') ? '' : buf.toString('utf8'),
    json,
  };
}

/** Posts a prompt body and waits (bounded polling of /history) until it has finished; returns its id. */
export async function runToHistory(baseUrl: string, body: Record<string, unknown>, timeoutMs = 10000): Promise<string> {
  const r = await http(baseUrl, 'POST', '/prompt', JSON.stringify(body), { 'Content-Type': 'application/json' });
  if (r.status !== 200) throw new Error(`setup prompt rejected: ${r.status} ${r.text}`);
  const id = (r.json as { prompt_id: string }).prompt_id;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const h = await http(baseUrl, 'GET', `/history/${encodeURIComponent(id)}`);
    if (h.json && Object.keys(h.json as object).length > 0) return id;
    await delay(10);
  }
  throw new Error(`setup prompt ${id} did not finish within ${timeoutMs} ms`);
}

/**
 * Frames that place an action in a run's time line. Total counts alone drift where the number of
 * per-node frames is timing (a reconnect): an action the recorder took after `executing {node:null}`
 * must not be replayed right on `execution_success`, inside the window before history is written.
 */
function milestone(f: WsFrame): string | null {
  if (f.type === 'executing') return f.data['node'] === null ? 'executing:null' : null;
  return ['execution_start', 'execution_success', 'execution_error', 'execution_interrupted'].includes(f.type)
    ? f.type
    : null;
}

function milestoneCounts(frames: readonly WsFrame[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of frames) {
    const m = milestone(f);
    if (m !== null) counts.set(m, (counts.get(m) ?? 0) + 1);
  }
  return counts;
}

function reached(got: readonly WsFrame[], need: { total: number; milestones: Map<string, number> }): boolean {
  if (got.length < need.total) return false;
  const have = milestoneCounts(got);
  return [...need.milestones].every(([m, n]) => (have.get(m) ?? 0) >= n);
}

function collapse(types: string[], mode: WsMode): string[] {
  if (mode === 'exact') return types;
  const noStatus = types.filter((t) => t !== 'status');
  if (mode === 'status-unordered') return noStatus;
  // 'collapsed': runs of per-node frames become one token (how many nodes ran while a client was
  // connected depends on timing, the shape of the stream does not).
  const out: string[] = [];
  for (const t of noStatus) {
    const tok = t === 'progress_state' || t === 'executing' || t === 'progress' ? 'NODES' : t;
    if (tok === 'NODES' && out[out.length - 1] === 'NODES') continue;
    out.push(tok);
  }
  return out;
}

function filenames(frames: WsFrame[]): string[] {
  return frames
    .filter((f) => f.type === 'executed')
    .flatMap((f) =>
      ((f.data['output'] as { images?: Array<{ filename: string }> } | null)?.images ?? []).map((i) => i.filename),
    );
}

function substitute(text: string, map: Map<string, string>): string {
  let out = text;
  for (const [from, to] of map) if (from !== '') out = out.split(from).join(to);
  return out;
}

/** Replays `rec` against the simulator at `baseUrl`; returns human-readable differences (empty = faithful). */
export async function replayCase(baseUrl: string, rec: RecordedCase, opts: ReplayOptions = {}): Promise<string[]> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const mode = opts.wsMode ?? 'exact';
  const diffs: string[] = [];
  const recToSim = new Map<string, string>();
  const simToRec = new Map<string, string>();
  const mapId = (recId: string, simId: string): void => {
    recToSim.set(recId, simId);
    simToRec.set(simId, recId);
  };
  const clients = new WsClients(baseUrl);
  const recWs = rec.events.filter((e) => e.kind === 'ws');
  const labels = [...new Set(recWs.map((e) => e.client!))];

  try {
    await seed(baseUrl, rec, opts, mapId);
    if (opts.setup) await opts.setup(baseUrl);

    const syncTo = async (t: number, what: string): Promise<void> => {
      const need = new Map(
        labels.map((l) => {
          const before = recWs.filter((e) => e.client === l && e.t_ms! < t).map((e) => e.message!);
          return [l, { total: before.length, milestones: milestoneCounts(before) }] as const;
        }),
      );
      await clients.waitUntil(
        () => [...need].every(([l, n]) => reached(clients.of(l), n)),
        timeoutMs,
        `frames before ${what} (${[...need].map(([l, n]) => `${l}:${clients.of(l).length}/${n.total}`).join(' ')})`,
      );
    };

    for (const ev of rec.events) {
      if (ev.kind === 'ws_open') {
        await syncTo(ev.t_ms!, `ws_open ${ev.client}`);
        await clients.open(ev.client!, ev.url!);
      } else if (ev.kind === 'ws_send') {
        await syncTo(ev.t_ms!, `ws_send ${ev.client}`);
        clients.send(ev.client!, ev.message);
      } else if (ev.kind === 'ws_close_requested_by_client') {
        await syncTo(ev.t_ms!, `close ${ev.client}`);
        await clients.close(ev.client!);
      } else if (ev.kind === 'http') {
        await syncTo(ev.t_sent_ms!, `${ev.request!.method} ${ev.request!.path}`);
        await replayHttp(baseUrl, ev, opts, recToSim, simToRec, mapId, diffs, timeoutMs);
      }
    }
    for (const l of labels) {
      const recorded = collapse(
        recWs.filter((e) => e.client === l).map((e) => e.message!.type),
        mode,
      );
      const got = collapse(
        clients.of(l).map((f) => f.type),
        mode,
      );
      if (JSON.stringify(recorded) !== JSON.stringify(got)) {
        diffs.push(`ws ${l} (${mode}) types differ:\n  recorded: ${recorded.join(' ')}\n  simulator: ${got.join(' ')}`);
      }
      if (mode === 'status-unordered') {
        const n = (xs: string[]): number => xs.filter((t) => t === 'status').length;
        const r = n(recWs.filter((e) => e.client === l).map((e) => e.message!.type));
        const s = n(clients.of(l).map((f) => f.type));
        if (r !== s) diffs.push(`ws ${l}: ${r} status frames recorded, ${s} from the simulator`);
      }
      if (opts.compareFilenames) {
        const r = filenames(recWs.filter((e) => e.client === l).map((e) => e.message!));
        const s = filenames(clients.of(l));
        if (JSON.stringify(r) !== JSON.stringify(s))
          diffs.push(`ws ${l} saved files differ: recorded ${r.join(',')} simulator ${s.join(',')}`);
      }
    }
  } finally {
    clients.closeAll();
  }
  return diffs;
}

async function seed(
  baseUrl: string,
  rec: RecordedCase,
  opts: ReplayOptions,
  mapId: (r: string, s: string) => void,
): Promise<void> {
  if (!opts.seedHistoryFrom) return;
  const own = new Set(
    rec.events
      .filter((e) => e.kind === 'http' && e.request!.path === '/prompt' && e.response!.status === 200)
      .map((e) => (e.response!.body!.json as { prompt_id: string }).prompt_id),
  );
  const entries = new Map<string, [number, string, unknown, Record<string, unknown>]>();
  for (const e of rec.events) {
    if (e.kind !== 'http' || !opts.seedHistoryFrom.includes(e.label ?? '')) continue;
    for (const [k, v] of Object.entries(
      (e.response!.body?.json ?? {}) as Record<string, { prompt: [number, string, unknown, Record<string, unknown>] }>,
    )) {
      if (!own.has(k)) entries.set(k, v.prompt);
    }
  }
  for (const [k, p] of [...entries].sort((a, b) => a[1][0] - b[1][0])) {
    mapId(
      k,
      await runToHistory(baseUrl, {
        prompt: p[2],
        ...(p[3]['client_id'] !== undefined ? { client_id: p[3]['client_id'] } : {}),
      }),
    );
  }
}

async function replayHttp(
  baseUrl: string,
  ev: RecEvent,
  opts: ReplayOptions,
  recToSim: Map<string, string>,
  simToRec: Map<string, string>,
  mapId: (r: string, s: string) => void,
  diffs: string[],
  timeoutMs: number,
): Promise<void> {
  const req = ev.request!;
  const recRes = ev.response!;
  const path = substitute(req.path, recToSim);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = v.replace('http://127.0.0.1:8188', baseUrl);
  const body =
    req.body === null
      ? undefined
      : req.body.json !== undefined
        ? JSON.stringify(renameIds(req.body.json, recToSim))
        : req.body.text;
  const name = `${req.method} ${req.path}${ev.label ? ` [${ev.label}]` : ''}`;
  const recShape = recRes.body?.json !== undefined ? shapeOf(recRes.body.json) : null;
  const masked = (s: Shape): Shape => (opts.masks ?? []).reduce((acc, m) => maskShape(acc, m.path, 'masked'), s);
  // Polled requests: the recorder polled until the answer looked like this; so do we (bounded).
  // Any other request is sent once, at its recorded place in the frame stream (a GET /history sent
  // inside the window before the history write would show up as a difference, not be retried).
  const polled = /\bpoll/.test(ev.label ?? '');
  const until = Date.now() + timeoutMs;
  let got = await http(baseUrl, req.method, path, body, headers);
  while (
    polled &&
    recShape &&
    Date.now() < until &&
    JSON.stringify(masked(shapeOf(renameIds(got.json, simToRec)))) !== JSON.stringify(masked(recShape))
  ) {
    await delay(10);
    got = await http(baseUrl, req.method, path, body, headers);
  }
  if (req.path === '/prompt' && req.method === 'POST' && recRes.status === 200 && got.status === 200) {
    mapId((recRes.body!.json as { prompt_id: string }).prompt_id, (got.json as { prompt_id: string }).prompt_id);
  }
  if (ev.label && opts.skip?.[ev.label]) return;
  if (got.status !== recRes.status) diffs.push(`${name}: status ${got.status}, recorded ${recRes.status}`);
  const recCt = recRes.headers['Content-Type'] ?? '';
  if (got.contentType !== recCt) diffs.push(`${name}: content-type '${got.contentType}', recorded '${recCt}'`);
  if (recShape) {
    const a = JSON.stringify(masked(shapeOf(renameIds(got.json, simToRec))));
    const b = JSON.stringify(masked(recShape));
    if (a !== b)
      diffs.push(`${name}: JSON shape differs\n  recorded:  ${b.slice(0, 1500)}\n  simulator: ${a.slice(0, 1500)}`);
  } else if (recRes.body?.text !== undefined && got.text !== recRes.body.text) {
    diffs.push(
      `${name}: body ${JSON.stringify(got.text.slice(0, 200))}, recorded ${JSON.stringify(recRes.body.text.slice(0, 200))}`,
    );
  }
  const disp = recRes.headers['Content-Disposition'];
  if (disp !== undefined && recRes.status === 200) {
    // Presence and form only: file names can differ when an earlier case numbered them.
    if (!got.disposition || !/^filename="[^"]+"$/.test(got.disposition))
      diffs.push(`${name}: Content-Disposition '${got.disposition}', recorded '${disp}'`);
  }
}
