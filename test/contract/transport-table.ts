/**
 * The contract's transports, each set up over one real Engine on a temp data folder behind one
 * shape — call (rejecting with the error envelope), subscribe, close — so transports.test.ts runs
 * the same cases through every one of them:
 * - in-process: `engine.call` and `engine.events`, as the CLI uses the engine;
 * - HTTP/WebSocket: the real `startServer` on 127.0.0.1:0, driven by the renderer's own transport
 *   (ws-transport.ts) with Node's fetch and the `ws` package as the page's WebSocket;
 * - Electron IPC: the renderer's ipc-transport on the real preload bridge, joined by a fake
 *   ipcRenderer/ipcMain pair (structured clone) to the real main-side handlers (ipc.ts, its policy)
 *   and the engine host, whose engine process is the real engine service without the process;
 * - desktop studio mode: the desktop page's client (desktop-client.ts) on the real preload bridge,
 *   whose main side (ipc.ts with a StudioSession over an in-memory token store) hands it a real
 *   `serve`'s origin and a person's token (people defined, as a studio runs it); the page then
 *   talks HTTP/WebSocket to that server directly;
 * - the control listener: the loopback address and token in the lock record of an engine that
 *   holds the farm, called as a one-shot command in another terminal calls it (cli/remote-engine.ts).
 * What legitimately differs between them is data here, per transport: the HTTP status each kind of
 * answer carries, and which methods the transport refuses before the engine sees them (the
 * desktop page, besides the local-only ones, every method its views do not call).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { API_INPUTS, type ApiMethod } from '../../shared/api.js';
import {
  errorEnvelopeSchema,
  resultOfAnswer,
  ShotfarmError,
  toErrorEnvelope,
  type ErrorEnvelope,
} from '../../shared/errors.js';
import { LOCAL_ONLY_METHODS, METHODS } from '../../shared/methods.js';
import type { EventMap, WireTopic } from '../../shared/events.js';
import type { Engine } from '../../electron/engine/engine.js';
import { EngineHost } from '../../electron/main/engine-host.js';
import { registerIpc, sendToPage } from '../../electron/main/ipc.js';
import { createShotfarmBridge } from '../../electron/preload/bridge.js';
import { PAGE_METHODS } from '../../electron/preload/channels.js';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import type { ShotfarmClient } from '../../renderer/client/client.js';
import { createIpcClient } from '../../renderer/client/ipc-transport.js';
import { createWsClient } from '../../renderer/client/ws-transport.js';
import { createDesktopClient } from '../../renderer/client/desktop-client.js';
import { StudioSession } from '../../electron/main/studio-farm.js';
import { MemoryTokenStore } from '../../electron/main/token-store.js';
import { makeEngine, type TestEngine } from '../helpers/engine.js';
import { fakeElectronIpc } from '../helpers/fake-electron-ipc.js';
import { InMemoryEngineChild } from '../helpers/in-memory-engine-child.js';
import { providePageWebSocket } from '../helpers/page-websocket.js';
import { nextValue, waitUntil } from '../helpers/wait.js';

/** One transport, connected to its own engine. */
export interface Connection {
  /** The engine behind the transport: to read what the store holds, never to make the call under test. */
  engine: Engine;
  /** A contract call through the transport; rejects with the error envelope (a plain, checked object). */
  call(method: string, input: unknown): Promise<unknown>;
  subscribe<T extends WireTopic>(topic: T, fn: (payload: EventMap[T]) => void): () => void;
  /** The HTTP status of the last answer, on a transport that has statuses; null on the others. */
  lastStatus(): number | null;
  close(): Promise<void>;
}

export interface Transport {
  name: string;
  setup(): Promise<Connection>;
  /** The status each kind of answer comes with, or null where answers have no status. */
  statuses: { ok: number; badInput: number; unknownMethod: number; refused: number } | null;
  /** What the transport refuses before the engine sees it: a page may not call the local-only methods. */
  refuses: ReadonlySet<ApiMethod>;
  /** The other methods it refuses because no view of the page calls them (the desktop page's allowlist, PAGE_METHODS). */
  refusesUnused: ReadonlySet<ApiMethod>;
}

/** Whatever the transport rejected with, as the envelope it must be. */
function envelopeOf(err: unknown): ErrorEnvelope {
  const carried = err instanceof Error && 'envelope' in err ? err.envelope : err;
  const parsed = errorEnvelopeSchema.safeParse(carried);
  if (!parsed.success)
    throw new Error(`the transport rejected with something other than the error envelope: ${String(err)}`);
  return parsed.data;
}

function rejectingWithEnvelope<T>(answer: Promise<T>): Promise<T> {
  return answer.catch((err: unknown) => {
    throw envelopeOf(err);
  });
}

/** The renderer's clients are typed by the contract; the cases also send what it does not offer. */
function untypedCall(client: ShotfarmClient, method: string, input: unknown): Promise<unknown> {
  return rejectingWithEnvelope(client.call(method as ApiMethod, input as never));
}

const inProcess: Transport = {
  name: 'in-process',
  statuses: null,
  refuses: new Set(),
  refusesUnused: new Set(),
  async setup() {
    const t = await makeEngine({ templates: false });
    return {
      engine: t.engine,
      // Anything the engine throws becomes its envelope, as every host turns it into one.
      call: (method, input) =>
        t.engine.call(method as ApiMethod, input).catch((err: unknown) => Promise.reject(toErrorEnvelope(err))),
      subscribe: (topic, fn) => t.engine.events.on(topic, fn),
      lastStatus: () => null,
      close: t.close,
    };
  },
};

/**
 * Wraps the global fetch the renderer's transport uses, to see the status of each answer;
 * `desktopOrigin`: requests say `Origin: null`, as the desktop app's page does.
 */
function recordStatuses(desktopOrigin: boolean): { last: () => number | null; restore: () => void } {
  const original = globalThis.fetch;
  let last: number | null = null;
  globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
    if (desktopOrigin) {
      const headers = new Headers(args[1]?.headers);
      headers.set('origin', 'null');
      args[1] = { ...args[1], headers };
    }
    const res = await original(...args);
    last = res.status;
    return res;
  };
  return { last: () => last, restore: () => void (globalThis.fetch = original) };
}

/** Resolves once the client's events socket said hello (events are sent to connected sockets only). */
async function online(client: ShotfarmClient): Promise<void> {
  let off = (): void => undefined;
  await nextValue<void>(
    (ready) => {
      off = client.onConnection((state) => void (state === 'online' && ready()));
    },
    { what: 'the events socket to say hello', timeoutMs: 10_000 },
  );
  off();
}

/** What a `serve` answers, to a browser page, a script or the studio-mode desktop alike. */
const SERVER_ANSWERS = {
  statuses: { ok: 200, badInput: 400, unknownMethod: 404, refused: 403 },
  refuses: LOCAL_ONLY_METHODS,
  // Scripts with the token use the API too (templates, probes, releases): only the local-only methods are closed.
  refusesUnused: new Set<ApiMethod>(),
} as const;

const http: Transport = {
  name: 'HTTP/WebSocket',
  ...SERVER_ANSWERS,
  async setup() {
    const t = await makeEngine({ templates: false });
    const server = await startServer({ engine: t.engine, host: '127.0.0.1', port: 0 });
    return httpConnection(t, server, async () => createWsClient({ baseUrl: server.url, token: server.token }));
  },
};

/**
 * A connection whose client talks HTTP/WebSocket to `server` (made once the page's WebSocket is
 * provided and statuses are recorded), ready once its events socket said hello.
 */
async function httpConnection(
  t: TestEngine,
  server: RunningServer,
  makeClient: () => Promise<ShotfarmClient & { close?: () => void }>,
  o: { desktopOrigin?: boolean } = {},
): Promise<Connection> {
  const unprovide = providePageWebSocket(o);
  const statuses = recordStatuses(o.desktopOrigin === true);
  let client: (ShotfarmClient & { close?: () => void }) | null = null;
  const close = async (): Promise<void> => {
    client?.close?.();
    statuses.restore();
    unprovide();
    await server.close();
    await t.close();
  };
  try {
    client = await makeClient();
    await online(client);
  } catch (err) {
    await close();
    throw err;
  }
  const c = client;
  return {
    engine: t.engine,
    call: (method, input) => untypedCall(c, method, input),
    subscribe: (topic, fn) => c.subscribe(topic, fn),
    lastStatus: statuses.last,
    close,
  };
}

const ipc: Transport = {
  name: 'Electron IPC',
  statuses: null,
  // The desktop's Settings view may change the number settings (reach `desktop`; a folder key is
  // still refused: electron-page-limits.test.ts), so settings.set/reset reach the engine here.
  refuses: new Set([...LOCAL_ONLY_METHODS].filter((m) => !PAGE_METHODS.has(m))),
  // Reach `api`: open to serve's scripts, but no view of the page calls them.
  refusesUnused: new Set((Object.keys(API_INPUTS) as ApiMethod[]).filter((m) => METHODS[m].reach === 'api')),
  async setup() {
    const t = await makeEngine({ templates: false });
    // Any absolute path: the main side answers only a top frame showing exactly this file.
    const indexHtml = join(t.dir, 'app', 'index.html');
    const fake = fakeElectronIpc({ pageUrl: pathToFileURL(indexHtml).href });
    const host = new EngineHost({ spawn: () => new InMemoryEngineChild(t.engine) });
    // As main.ts relays them: the host's engine events go to the window.
    host.on('event', (topic, payload) => sendToPage(fake.contents, topic, payload));
    registerIpc({
      ipcMain: fake.ipcMain,
      indexHtml,
      host,
      exportDir: join(t.dir, 'exports'),
      log: () => undefined,
      openShotList: async () => null,
      reveal: () => undefined,
      chooseExportPath: async () => null,
    });
    host.start();
    const client = createIpcClient(createShotfarmBridge(fake.ipcRenderer));
    return {
      engine: t.engine,
      call: (method, input) => untypedCall(client, method, input),
      subscribe: (topic, fn) => client.subscribe(topic, fn),
      lastStatus: () => null,
      async close() {
        await host.stop();
        await t.close();
      },
    };
  },
};

const studio: Transport = {
  name: 'desktop studio mode',
  // The page calls the studio farm as a browser would.
  ...SERVER_ANSWERS,
  async setup() {
    const t = await makeEngine({ templates: false });
    // A studio farm with people (README → Studio farm): the page presents Mira's personal token —
    // on its calls and on its event socket (Origin null), which the server once refused.
    const { token } = await t.engine.call('users.add', { name: 'mira', role: 'admin' });
    const server = await startServer({ engine: t.engine, host: '127.0.0.1', port: 0 });
    const indexHtml = join(t.dir, 'app', 'index.html');
    const fake = fakeElectronIpc({ pageUrl: pathToFileURL(indexHtml).href });
    const session = new StudioSession({
      choice: { mode: 'studio', origin: server.url },
      choiceFile: join(t.dir, 'farm-choice.json'),
      tokens: new MemoryTokenStore(token),
      restart: () => undefined,
    });
    // In studio mode no engine runs here: the main side's calls (the menu's) go to the farm.
    registerIpc({
      ipcMain: fake.ipcMain,
      indexHtml,
      host: { call: () => Promise.reject(new Error('no local engine in studio mode')) },
      exportDir: join(t.dir, 'exports'),
      log: () => undefined,
      openShotList: async () => null,
      chooseExportPath: async () => null,
      reveal: () => undefined,
      studio: session,
    });
    return httpConnection(
      t,
      server,
      async () => {
        const client = await createDesktopClient(createShotfarmBridge(fake.ipcRenderer));
        if (client.farmChoice?.mode !== 'studio' || client.farmChoice.origin !== server.url)
          throw new Error('the desktop client is not in studio mode on the server');
        return client;
      },
      { desktopOrigin: true },
    );
  },
};

/**
 * The control listener carries calls only: a one-shot command never subscribes, so events are
 * taken from the engine behind it (what the calls made through the listener caused).
 */
const control: Transport = {
  name: 'the control listener',
  // The contract over HTTP as serve answers it (engine/hosting/contract-http.ts), at this machine's door: nothing refused.
  statuses: { ok: 200, badInput: 400, unknownMethod: 404, refused: 403 },
  refuses: new Set(),
  refusesUnused: new Set(),
  async setup() {
    const t = await makeEngine({ templates: false, kind: 'run' });
    let last: number | null = null;
    try {
      const { url, token } = await waitUntil(() => t.engine.holder?.control, {
        what: 'the lock record to say where the control listener is',
        timeoutMs: 10_000,
      });
      return {
        engine: t.engine,
        // What RemoteEngine sends, and its reading of the answer (shared/errors.ts resultOfAnswer).
        async call(method, input) {
          const res = await fetch(`${url}/call/${method}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(input ?? {}),
          });
          last = res.status;
          const body: unknown = await res.json();
          return rejectingWithEnvelope(
            Promise.resolve().then(() =>
              resultOfAnswer(body, () => new ShotfarmError('internal', `unexpected answer (HTTP ${res.status})`)),
            ),
          );
        },
        subscribe: (topic, fn) => t.engine.events.on(topic, fn),
        lastStatus: () => last,
        close: t.close,
      };
    } catch (err) {
      await t.close();
      throw err;
    }
  },
};

export const TRANSPORTS: readonly Transport[] = [inProcess, http, ipc, studio, control];
