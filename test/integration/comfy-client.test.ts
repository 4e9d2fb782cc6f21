// ComfyClient against throwaway loopback servers (node:http, port 0): real sockets, real undici.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { ComfyRequestError, type ComfyFailure } from '../../electron/engine/comfy/observation.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const servers: Server[] = [];
const dir = mkdtempSync(join(tmpdir(), 'comfy-client-'));
after(async () => {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function failureOf(p: Promise<unknown>): Promise<ComfyFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ComfyRequestError) return err.failure;
    throw err;
  }
  assert.fail('expected a ComfyRequestError');
}

/** A port that was just free: listen, note the port, close. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

test('postPrompt sends the body without an Origin header and returns the execution number', async () => {
  let seen: { headers: IncomingMessage['headers']; body: unknown } | null = null;
  const url = await serve((req, res, body) => {
    seen = { headers: req.headers, body: JSON.parse(body.toString()) };
    json(res, 200, { prompt_id: 'p1', number: 7, node_errors: {} });
  });
  const r = await new ComfyClient(url).postPrompt({
    prompt: { '1': { class_type: 'X', inputs: {} } },
    promptId: 'p1',
    clientId: 'sf-a-1',
    extraData: { shotfarm_attempt: 'a' },
    number: 12,
  });
  assert.deepEqual(r, { ok: true, promptId: 'p1', number: 7, nodeErrors: {} });
  assert.ok(seen);
  const s = seen as { headers: IncomingMessage['headers']; body: unknown };
  assert.equal(s.headers.origin, undefined);
  assert.deepEqual(s.body, {
    prompt: { '1': { class_type: 'X', inputs: {} } },
    prompt_id: 'p1',
    client_id: 'sf-a-1',
    extra_data: { shotfarm_attempt: 'a' },
    number: 12,
  });
});

test('postPrompt returns a validation 400 as ok:false with the parsed error', async () => {
  const url = await serve((_q, res) =>
    json(res, 400, {
      error: {
        type: 'invalid_prompt',
        message: 'Cannot execute because node NoSuchNode does not exist.',
        details: "Node ID '#1'",
        extra_info: {},
      },
      node_errors: [],
    }),
  );
  const r = await new ComfyClient(url).postPrompt({ prompt: {}, promptId: 'p' });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.status, 400);
  assert.equal(r.error.type, 'invalid_prompt');
  assert.deepEqual(r.nodeErrors, {});
});

test('a 500 text page becomes an http failure carrying the text', async () => {
  const url = await serve((_q, res) =>
    res
      .writeHead(500, { 'content-type': 'text/plain' })
      .end('500 Internal Server Error\n\nServer got itself in trouble'),
  );
  const f = await failureOf(new ComfyClient(url).postPrompt({ prompt: {}, promptId: 'p' }));
  assert.equal(f.kind, 'http');
  if (f.kind !== 'http') return;
  assert.equal(f.status, 500);
  assert.match(f.bodyText, /Server got itself in trouble/);
  assert.equal(f.body, null);
});

test('a server that never answers becomes a timeout with the budget', async () => {
  const url = await serve(() => {
    /* never respond */
  });
  const f = await failureOf(new ComfyClient(url, { timeoutMs: 150 }).getQueue());
  assert.deepEqual(f, { kind: 'timeout', afterMs: 150 });
});

test('a per-call timeoutMs overrides the client default', async () => {
  const url = await serve(() => {});
  const f = await failureOf(new ComfyClient(url, { timeoutMs: 60_000 }).getQueue({ timeoutMs: 80 }));
  assert.deepEqual(f, { kind: 'timeout', afterMs: 80 });
});

test('the caller aborting becomes aborted, not timeout', async () => {
  let arrived!: () => void;
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));
  const url = await serve(() => arrived()); // never answers
  const ac = new AbortController();
  const p = new ComfyClient(url).getQueue({ signal: ac.signal });
  await inFlight;
  ac.abort();
  assert.deepEqual(await failureOf(p), { kind: 'aborted' });
});

test('a closed port becomes refused', async () => {
  const f = await failureOf(new ComfyClient(await closedPort()).getSystemStats());
  assert.deepEqual(f, { kind: 'refused' });
});

test('a server that destroys the socket becomes reset', async () => {
  const url = await serve((req) => req.socket.destroy());
  const f = await failureOf(new ComfyClient(url).getQueue());
  assert.deepEqual(f, { kind: 'reset' });
});

test('a 200 that is not JSON or not the schema becomes malformed', async () => {
  const notJson = await serve((_q, res) => res.writeHead(200).end('<html>'));
  assert.equal((await failureOf(new ComfyClient(notJson).getQueue())).kind, 'malformed');
  const wrongShape = await serve((_q, res) => json(res, 200, { queue_running: 'nope' }));
  const f = await failureOf(new ComfyClient(wrongShape).getQueue());
  assert.equal(f.kind, 'malformed');
  assert.match(f.kind === 'malformed' ? f.detail : '', /queue_running/);
});

test('getQueue sorts pending and getHistory maps {} to null', async () => {
  const url = await serve((req, res) => {
    if (req.url === '/queue')
      json(res, 200, {
        queue_running: [],
        queue_pending: [
          [5, 'b', {}, {}, ['9']],
          [-2, 'a', {}, {}, ['9']],
        ],
      });
    else json(res, 200, {});
  });
  const c = new ComfyClient(url);
  assert.deepEqual(
    (await c.getQueue()).pending.map((i) => i.promptId),
    ['a', 'b'],
  );
  assert.equal(await c.getHistory('8d0f2f7e-5c1a-5b53-9a51-0e0f4f0b2a11'), null);
});

test('empty-body 200 routes send the documented JSON bodies', async () => {
  const got: Array<[string, string]> = [];
  const url = await serve((req, res, body) => {
    got.push([`${req.method} ${req.url}`, body.toString()]);
    res.writeHead(200).end();
  });
  const c = new ComfyClient(url);
  await c.deleteFromQueue(['a']);
  await c.clearQueue();
  await c.deleteHistory(['b']);
  await c.interrupt('p1');
  await c.interrupt();
  await c.free({ unloadModels: true, freeMemory: false });
  assert.deepEqual(got, [
    ['POST /queue', '{"delete":["a"]}'],
    ['POST /queue', '{"clear":true}'],
    ['POST /history', '{"delete":["b"]}'],
    ['POST /interrupt', '{"prompt_id":"p1"}'],
    ['POST /interrupt', ''],
    ['POST /free', '{"unload_models":true,"free_memory":false}'],
  ]);
});

test('getHistoryList passes max_items and offset', async () => {
  let seenUrl = '';
  const url = await serve((req, res) => {
    seenUrl = req.url ?? '';
    json(res, 200, {});
  });
  assert.deepEqual(await new ComfyClient(url).getHistoryList({ maxItems: 2, offset: 0 }), []);
  assert.equal(seenUrl, '/history?max_items=2&offset=0');
});

test('getObjectInfoClass is null for {} and getFeatures is null on 404', async () => {
  const url = await serve((req, res) => {
    if (req.url === '/features') res.writeHead(404).end('404: Not Found');
    else if (req.url === '/object_info/ImageInvert')
      json(res, 200, { ImageInvert: { input: { required: { image: ['IMAGE'] } }, name: 'ImageInvert' } });
    else json(res, 200, {});
  });
  const c = new ComfyClient(url);
  assert.equal(await c.getObjectInfoClass('NoSuchNode'), null);
  assert.equal((await c.getObjectInfoClass('ImageInvert'))?.name, 'ImageInvert');
  assert.equal(await c.getFeatures(), null);
});

test('downloadView streams a large body to the destination and returns the byte count', async () => {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const chunks = 64; // 4 MiB, written in pieces so the client must stream
  let query = '';
  const url = await serve((req, res) => {
    query = req.url ?? '';
    res.writeHead(200, { 'content-type': 'image/png' });
    let i = 0;
    const pump = (): void => {
      while (i < chunks) {
        i++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  const dest = join(dir, 'out.png.part');
  const n = await new ComfyClient(url).downloadView(
    { filename: 'shot 010_00001_.png', subfolder: 'ep1', type: 'output' },
    dest,
    { fsync: true },
  );
  assert.equal(n, chunk.length * chunks);
  assert.equal(statSync(dest).size, n);
  assert.equal(query, '/view?filename=shot+010_00001_.png&subfolder=ep1&type=output');
});

test('downloadView reports a 404 as http and a stalled body as timeout', async () => {
  const url = await serve((req, res) => {
    if (req.url?.includes('missing')) return void res.writeHead(404).end('404: Not Found');
    res.writeHead(200);
    res.write('partial'); // then stall
  });
  const c = new ComfyClient(url, { timeoutMs: 150 });
  const f404 = await failureOf(c.downloadView({ filename: 'missing.png' }, join(dir, 'a')));
  assert.equal(f404.kind === 'http' && f404.status, 404);
  assert.deepEqual(await failureOf(c.downloadView({ filename: 'slow.png' }, join(dir, 'b'))), {
    kind: 'timeout',
    afterMs: 150,
  });
});

test('uploadImage sends multipart with the file and fields, and returns the server name', async () => {
  const src = join(dir, 'plate_010.png');
  writeFileSync(src, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
  let ctype = '';
  let raw: Buffer = Buffer.alloc(0);
  const url = await serve((req, res, body) => {
    ctype = req.headers['content-type'] ?? '';
    raw = body;
    json(res, 200, { name: 'plate_010 (1).png', subfolder: 'shot010', type: 'input' });
  });
  const r = await new ComfyClient(url).uploadImage(src, { subfolder: 'shot010', type: 'input', overwrite: false });
  assert.deepEqual(r, { name: 'plate_010 (1).png', subfolder: 'shot010', type: 'input' });
  assert.match(ctype, /^multipart\/form-data; boundary=/);
  // Parse it back with the platform's own multipart parser.
  const form = await new Response(raw, { headers: { 'content-type': ctype } }).formData();
  const file = form.get('image');
  assert.ok(file instanceof Blob);
  assert.equal((file as File).name, 'plate_010.png');
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), readFileSync(src));
  assert.equal(form.get('subfolder'), 'shot010');
  assert.equal(form.get('type'), 'input');
  assert.equal(form.get('overwrite'), 'false');
});
