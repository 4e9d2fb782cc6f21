// One simulated ComfyUI server: a node:http server and a `ws` WebSocketServer on the same port,
// plus the faults a real workstation has — crash (TCP reset, all volatile state lost), restart on the
// same port, and a network partition (connections accepted, nothing answered until healed).

import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { SimCore, type Counts } from './core.js';
import { PreviewStore, type ImageDirs } from './images.js';
import { originRejected, sendEmpty } from './http-util.js';
import { resolveOptions, type SimInstanceOptions } from './options.js';
import { handleRequest, isControlPath, type RouteHost } from './routes.js';

export interface SimInstance {
  readonly url: string;
  readonly port: number;
  readonly name: string;
  counts(promptId: string): Counts;
  allCounts(): Record<string, Counts>;
  /** Requests answered per ComfyUI route (`GET /system_stats`, `GET /queue`, …), since the start. */
  requestCounts(): Record<string, number>;
  setScript(words: string[]): void;
  crash(): Promise<void>;
  restart(): Promise<void>;
  partition(on: boolean): void;
  /**
   * The next `n` POST /prompt requests are held, read but not queued, until `releasePrompts`: a
   * POST still on its way to the server (a slow network, or a sender frozen just before it sent).
   */
  holdPrompts(n: number): void;
  /** How many POST /prompt requests are held now. */
  heldPrompts(): number;
  /** Queues the held POST /prompt requests, in arrival order, and answers them. */
  releasePrompts(): void;
  setVramOther(gb: number): void;
  /** How many POST /free requests arrived. */
  freeRequests(): number;
  /** How many times a prompt loaded a checkpoint other than the one loaded (model reloads). */
  modelLoads(): number;
  close(): Promise<void>;
}

const FEATURES = { supports_preview_metadata: true, max_upload_size: 104857600 };

export class SimInstanceImpl implements SimInstance, RouteHost {
  readonly core: SimCore;
  private server: Server | null = null;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<Socket>();
  private parked: Array<() => void> = [];
  private partitioned = false;
  private holdNext = 0;
  private held: Array<() => void> = [];
  private closed = false;
  private ownedDirs: string[] = [];
  /** Bumped by crash: close handlers of sockets from before it must not touch the new registry. */
  private epoch = 0;
  port = 0;

  constructor(private readonly options: ReturnType<typeof resolveOptions>) {
    const base = mkdtempSync(join(tmpdir(), `comfysim-${options.name}-`));
    this.ownedDirs.push(base);
    const dirs: ImageDirs = {
      output: options.outputDir ?? join(base, 'output'),
      input: join(base, 'input'),
      temp: join(base, 'temp'),
      previews: new PreviewStore(),
    };
    for (const d of [dirs.output, dirs.input, dirs.temp]) mkdirSync(d, { recursive: true });
    for (const [name, from] of Object.entries(options.inputFiles)) copyFileSync(from, join(dirs.input, name));
    this.core = new SimCore(options, dirs);
    this.core.onCrashWord = () => void this.crash();
    this.port = options.port;
  }

  get name(): string {
    return this.options.name;
  }
  get url(): string {
    return `http://${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${this.port}`;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('upgrade', (req, socket: Socket, head: Buffer) => this.onUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address();
    if (addr && typeof addr === 'object') this.port = addr.port;
    this.server = server;
    this.core.down = false;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const control = isControlPath(url.pathname);
    const run = (): void => {
      if (req.destroyed || res.destroyed) return;
      if (!control && originRejected(req)) return sendEmpty(res, 403);
      void handleRequest(this, req, res, url);
    };
    if (this.partitioned && !control) this.parked.push(run);
    else run();
  }

  private onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const run = (): void => {
      if (socket.destroyed) return;
      if (url.pathname !== '/ws' && url.pathname !== '/api/ws') {
        socket.end(
          'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 14\r\n\r\n404: Not Found',
        );
        return;
      }
      if (originRejected(req)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: application/octet-stream\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) =>
        this.onSocket(ws, url.searchParams.get('clientId') || randomUUID().replace(/-/g, '')),
      );
    };
    if (this.partitioned) this.parked.push(run);
    else run();
  }

  /** `websocket_handler`: register, greet with `status`+`sid`, replay the running node to its client. */
  private onSocket(ws: WebSocket, sid: string): void {
    const { hub, run } = this.core;
    ws.on('error', () => {});
    this.core.settleDue('/ws');
    hub.register(sid, ws);
    hub.write(ws, { type: 'status', data: { status: this.core.queueInfo(), sid } });
    if (run.clientId === sid && run.lastNodeId !== null)
      hub.write(ws, { type: 'executing', data: { node: run.lastNodeId } });
    let first = true;
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        const msg = JSON.parse(String(data)) as { type?: unknown };
        if (first && msg.type === 'feature_flags') hub.write(ws, { type: 'feature_flags', data: FEATURES });
      } catch {
        /* ComfyUI logs and ignores bad frames */
      }
      first = false;
    });
    const epoch = this.epoch;
    ws.on('close', () => {
      if (epoch === this.epoch) hub.unregister(sid);
    });
  }

  afterResponse(res: ServerResponse, fn: () => void): void {
    // `Connection: close` makes Node send FIN after the body, so the client reads the answer before
    // the fault resets everything else.
    res.setHeader('Connection', 'close');
    const sock = res.socket;
    let done = false;
    const once = (): void => {
      if (!done) {
        done = true;
        fn();
      }
    };
    res.on('finish', () => {
      if (!sock || sock.destroyed) return once();
      sock.once('close', once);
      setTimeout(once, 500).unref();
    });
  }

  counts(promptId: string): Counts {
    return { ...(this.core.counts.get(promptId) ?? { received: 0, executed: 0, interrupted: 0, failed: 0 }) };
  }

  allCounts(): Record<string, Counts> {
    return Object.fromEntries([...this.core.counts].map(([k, v]) => [k, { ...v }]));
  }

  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.core.requests);
  }

  setScript(words: string[]): void {
    this.core.script.set(words);
  }

  setVramOther(gb: number): void {
    this.core.vram.otherGb = gb;
  }

  freeRequests(): number {
    return this.core.freeRequests;
  }

  modelLoads(): number {
    return this.core.vram.modelLoads;
  }

  info(): Record<string, unknown> {
    return {
      name: this.name,
      url: this.url,
      port: this.port,
      gpuName: this.options.gpuName,
      vramTotalGb: this.options.vramTotalGb,
      vramOtherGb: this.core.vram.otherGb,
      protocol: this.options.protocol,
      historyDelayMs: this.options.historyDelayMs,
      scriptRemaining: this.core.script.remaining(),
      partitioned: this.partitioned,
      down: this.core.down,
    };
  }

  partition(on: boolean): void {
    this.partitioned = on;
    this.core.hub.setPartitioned(on);
    if (on) return;
    const parked = this.parked;
    this.parked = [];
    for (const run of parked) run();
  }

  holdPrompts(n: number): void {
    this.holdNext = n;
  }

  heldPrompts(): number {
    return this.held.length;
  }

  releasePrompts(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }

  promptGate(): Promise<void> {
    if (this.holdNext <= 0) return Promise.resolve();
    this.holdNext--;
    return new Promise((resolve) => this.held.push(resolve));
  }

  async crash(): Promise<void> {
    this.core.down = true;
    // A held POST dies with the server (its connection is reset below): never queued.
    this.held = [];
    this.holdNext = 0;
    this.epoch++;
    this.core.wipe();
    this.parked = [];
    this.partitioned = false;
    this.core.hub.setPartitioned(false);
    for (const ws of this.wss.clients) ws.terminate();
    // A dead process: the kernel answers every open connection with RST.
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(): Promise<void> {
    await this.crash();
    if (!this.closed) await this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.crash();
    this.wss.close();
    for (const d of this.ownedDirs) rmSync(d, { recursive: true, force: true });
  }
}

export async function startSimInstance(opts: SimInstanceOptions = {}): Promise<SimInstance> {
  const inst = new SimInstanceImpl(resolveOptions(opts));
  await inst.listen();
  return inst;
}
