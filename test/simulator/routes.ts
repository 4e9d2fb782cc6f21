// HTTP routes of ComfyUI (every one also under `/api`), answering with the status codes, content
// types and body shapes of test/fixtures/comfyui-recorded/. Control routes for tests and other processes
// live under `/__sim/` (they skip the origin check and keep answering during a partition).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimCore } from './core.js';
import { storeUpload, viewFile } from './images.js';
import { BadJson, parseJson, readBody, send500, sendEmpty, sendJson, sendText } from './http-util.js';

export interface RouteHost {
  core: SimCore;
  /** Runs `fn` once the response has been flushed and its connection closed (restart/crash faults). */
  afterResponse(res: ServerResponse, fn: () => void): void;
  crash(): Promise<void>;
  restart(): Promise<void>;
  partition(on: boolean): void;
  /** Resolves when a received POST /prompt may be queued (at once, unless the test holds it: a POST still on its way). */
  promptGate(): Promise<void>;
  info(): Record<string, unknown>;
  allCounts(): Record<string, unknown>;
  requestCounts(): Record<string, number>;
}

type Handler = (
  h: RouteHost,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  param: string,
) => Promise<void> | void;

const FEATURES = { supports_preview_metadata: true, max_upload_size: 104857600 };

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  return parseJson(await readBody(req));
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const routes: Record<string, Partial<Record<string, Handler>>> = {
  '/prompt': {
    GET: (h, _q, res) => sendJson(res, 200, h.core.queueInfo()),
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      await h.promptGate();
      const answer = h.core.postPrompt(body);
      if (answer.kind === '500') return send500(res);
      if (answer.after === 'restart') h.afterResponse(res, () => void h.restart());
      sendJson(res, answer.status, answer.body);
    },
  },
  '/queue': {
    GET: (h, _q, res) =>
      sendJson(res, 200, {
        queue_running: h.core.queue.running ? [h.core.queue.running] : [],
        queue_pending: h.core.queue.pending,
      }),
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      if (!isObj(body)) return send500(res);
      if (body['clear']) h.core.clearPending();
      if (Array.isArray(body['delete'])) h.core.deletePending(body['delete'].map(String));
      sendEmpty(res, 200);
    },
  },
  '/history': {
    GET: (h, _q, res, url) => {
      const max = url.searchParams.get('max_items');
      const off = url.searchParams.get('offset');
      sendJson(
        res,
        200,
        h.core.queue.getHistory(
          max === null ? null : Number.parseInt(max, 10),
          off === null ? -1 : Number.parseInt(off, 10),
        ),
      );
    },
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      if (!isObj(body)) return send500(res);
      if (body['clear']) h.core.queue.history.clear();
      if (Array.isArray(body['delete'])) for (const id of body['delete']) h.core.queue.history.delete(String(id));
      sendEmpty(res, 200);
    },
  },
  '/history/:id': {
    GET: (h, _q, res, _u, id) => {
      const entry = h.core.queue.history.get(id);
      sendJson(res, 200, entry ? { [id]: entry } : {});
    },
  },
  '/interrupt': {
    POST: async (h, req, res) => {
      // The only route here that tolerates a missing or broken body: then it is a global interrupt.
      let body: unknown = null;
      try {
        body = await jsonBody(req);
      } catch {
        body = null;
      }
      const id =
        isObj(body) && body['prompt_id'] !== undefined && body['prompt_id'] !== null ? String(body['prompt_id']) : null;
      h.core.interrupt(id);
      sendEmpty(res, 200);
    },
  },
  '/free': {
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      if (!isObj(body)) return send500(res);
      h.core.free(body['unload_models'] === true, body['free_memory'] === true);
      sendEmpty(res, 200);
    },
  },
  '/system_stats': {
    GET: (h, _q, res) => {
      const o = h.core.opts;
      sendJson(res, 200, {
        system: {
          os: o.protocol === 'new' ? 'linux' : 'posix',
          ram_total: 68719476736,
          ram_free: 60129542144,
          comfyui_version: o.protocol === 'new' ? '0.38.1' : '0.3.64',
          required_frontend_version: '1.27.10',
          installed_templates_version: null,
          required_templates_version: '0.1.95',
          python_version: '3.11.2 (main, Apr 28 2025, 14:11:48) [GCC 12.2.0]',
          pytorch_version: '2.8.0+cu128',
          embedded_python: false,
          argv: ['main.py', '--listen', o.host, '--port', String(h.info()['port'])],
        },
        devices: [h.core.vram.device(o.gpuName)],
      });
    },
  },
  '/object_info': {
    GET: (h, _q, res) => sendJson(res, 200, Object.fromEntries([...h.core.classes()].map(([k, v]) => [k, v.info]))),
  },
  '/object_info/:id': {
    GET: (h, _q, res, _u, cls) => {
      const def = h.core.classes().get(cls);
      sendJson(res, 200, def ? { [cls]: def.info } : {});
    },
  },
  '/features': { GET: (_h, _q, res) => sendJson(res, 200, FEATURES) },
  // comfyui-protocol.md §15: a sub-app at /internal (no /api copy), absent on older servers.
  '/internal/logs': {
    GET: (h, _q, res) => {
      if (!h.core.opts.serverLog) return sendText(res, 404, '404: Not Found');
      sendJson(
        res,
        200,
        h.core.log
          .raw()
          .map((e) => `${e.t} - ${e.m}`)
          .join(''),
      );
    },
  },
  '/internal/logs/raw': {
    GET: (h, _q, res) => {
      if (!h.core.opts.serverLog) return sendText(res, 404, '404: Not Found');
      sendJson(res, 200, { entries: h.core.log.raw(), size: { cols: 120, rows: 30 } });
    },
  },
  '/view': {
    GET: (h, _q, res, url) => {
      const r = viewFile(h.core.dirs, url.searchParams);
      if (r.status !== 200) return sendEmpty(res, r.status);
      res.writeHead(200, {
        'Content-Type': r.contentType,
        'Content-Disposition': `filename="${r.filename}"`,
        'Content-Length': r.body.length,
      });
      res.end(r.body);
    },
  },
  '/upload/image': {
    POST: async (h, req, res) => {
      const raw = await readBody(req);
      let form: FormData | null = null;
      try {
        form = await new Response(raw, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      } catch {
        return sendEmpty(res, 400);
      }
      const image = form.get('image');
      const file =
        typeof image === 'object' && image !== null
          ? { name: image.name, bytes: Buffer.from(await image.arrayBuffer()) }
          : null;
      const str = (k: string): string | null => {
        const v = form.get(k);
        return typeof v === 'string' ? v : null;
      };
      const r = storeUpload(h.core.dirs, file, str('type'), str('subfolder'), str('overwrite'));
      if (r.status === 200) return sendJson(res, 200, r.json);
      if (r.status === 500) return send500(res);
      sendEmpty(res, r.status);
    },
  },
  // ---- simulator control (not ComfyUI) ----
  '/__sim/counts': { GET: (h, _q, res) => sendJson(res, 200, h.allCounts()) },
  /** Requests per ComfyUI route so far (`{"GET /queue": 12, …}`): what a client costs the server. */
  '/__sim/requests': { GET: (h, _q, res) => sendJson(res, 200, h.requestCounts()) },
  '/__sim/info': { GET: (h, _q, res) => sendJson(res, 200, h.info()) },
  '/__sim/script': {
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      const words = isObj(body) && Array.isArray(body['words']) ? body['words'].map(String) : null;
      if (!words) return sendJson(res, 400, { error: 'expected {"words": [...]}' });
      try {
        h.core.script.set(words);
      } catch (e) {
        return sendJson(res, 400, { error: (e as Error).message });
      }
      sendJson(res, 200, { remaining: h.core.script.remaining() });
    },
  },
  /** Writes to the server's log as the process would, `ageMs` ago (negative: ahead), e.g. lines outside a window. */
  '/__sim/log': {
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      const m = isObj(body) && typeof body['m'] === 'string' ? body['m'] : null;
      const ageMs = isObj(body) && typeof body['ageMs'] === 'number' ? body['ageMs'] : 0;
      if (m === null) return sendJson(res, 400, { error: 'expected {"m": "text", "ageMs"?: number}' });
      h.core.log.write(m, Date.now() - ageMs);
      sendJson(res, 200, { entries: h.core.log.raw().length });
    },
  },
  '/__sim/fault': {
    POST: async (h, req, res) => {
      const body = await jsonBody(req);
      const fault = isObj(body) ? body['fault'] : undefined;
      const downMs = isObj(body) && typeof body['downMs'] === 'number' ? body['downMs'] : null;
      switch (fault) {
        case 'crash':
          // Answer first (the caller needs to know it landed), then die; `downMs` brings it back.
          h.afterResponse(
            res,
            () =>
              void h.crash().then(() => {
                if (downMs !== null) setTimeout(() => void h.restart(), downMs).unref();
              }),
          );
          return sendJson(res, 200, { fault });
        case 'restart':
          h.afterResponse(res, () => void h.restart());
          return sendJson(res, 200, { fault });
        case 'partition':
          h.partition(true);
          return sendJson(res, 200, { fault });
        case 'heal':
          h.partition(false);
          return sendJson(res, 200, { fault });
        default:
          return sendJson(res, 400, { error: 'fault must be crash | restart | partition | heal' });
      }
    },
  },
};

/** Splits `/api/x` → `/x` and finds the route (exact, else `/prefix/:param`). */
export function matchRoute(pathname: string): { key: string; param: string } | null {
  // The /internal sub-app has no /api copy (comfyui-protocol.md §15).
  if (pathname.startsWith('/api/internal/')) return null;
  const path = pathname.startsWith('/api/') ? pathname.slice(4) : pathname;
  if (routes[path]) return { key: path, param: '' };
  const slash = path.lastIndexOf('/');
  if (slash > 0) {
    const key = `${path.slice(0, slash)}/:id`;
    const param = decodeURIComponent(path.slice(slash + 1));
    // `/history/` (empty id) is a route miss in aiohttp (prompt_id_not_uuid.json).
    if (routes[key] && param !== '') return { key, param };
  }
  return null;
}

export async function handleRequest(h: RouteHost, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const m = matchRoute(url.pathname);
  if (!m) return sendText(res, 404, '404: Not Found');
  const handler = routes[m.key]![req.method ?? 'GET'];
  if (!handler) return sendText(res, 405, '405: Method Not Allowed');
  if (!isControlPath(url.pathname)) {
    const route = `${req.method ?? 'GET'} ${m.key}`;
    h.core.requests.set(route, (h.core.requests.get(route) ?? 0) + 1);
  }
  h.core.settleDue(url.pathname); // the worker thread's history write, if its time has come (core.runAfter)
  try {
    await handler(h, req, res, url, m.param);
  } catch (e) {
    if (!(e instanceof BadJson)) console.error('[simulator] route error', e);
    if (!res.headersSent) send500(res);
  }
}

export function isControlPath(pathname: string): boolean {
  return pathname.startsWith('/__sim/') || pathname.startsWith('/api/__sim/');
}
