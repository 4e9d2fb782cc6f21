/**
 * What the preload hands the page as `window.shotfarm`: the contract's `call` and `subscribe`, and
 * two shell capabilities. Nothing else crosses: not `ipcRenderer`, not a channel name, not the IPC
 * event object (its `sender` would give the page the raw IPC). Method names are checked against
 * the contract (the local-only methods refused, as the headless server refuses them) and then
 * against the methods the page's views use (PAGE_METHODS), and topics against the event map,
 * before anything is sent — so a compromised page can only ask for what the UI itself does, and
 * the main process checks again.
 *
 * Written against small interfaces (not Electron's) so tests pass fakes; preload.ts wires the real ones.
 */
import { callAnswerSchema, errorEnvelope as envelope, errorEnvelopeSchema, type ErrorEnvelope } from '../../shared/errors.js';
import { isApiMethod } from '../../shared/api.js';
import { localOnlyRefusal } from '../engine/hosting/local-only.js';
import { CHANNELS, isBridgeTopic, isPageMethod, type ShotListFile, type StudioState } from './channels.js';

/** The part of `ipcRenderer` the bridge uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The part of `contextBridge` the preload uses. */
export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: unknown): void;
}

/** `window.shotfarm`, as the renderer's IPC transport expects it. */
export interface ShotfarmBridge {
  call(method: string, input: unknown): Promise<unknown>;
  subscribe(topic: string, fn: (payload: unknown) => void): () => void;
  openShotListDialog(): Promise<ShotListFile | null>;
  revealFile(path: string): Promise<void>;
  /**
   * The studio farm this app joined, or null ("This computer"). The token is handed to the page's
   * transport, which keeps it in memory only (as a browser tab keeps its token): it must send it
   * with each request to that farm. It is never written to the page's storage or URL.
   */
  studioFarm(): Promise<StudioState>;
  /** Joins a studio farm (checked, kept encrypted, the app restarts on it); rejects with an error envelope. */
  joinStudio(url: string, token: string): Promise<void>;
  /** Jobs imported in this app (for studio mode's desktop notifications). */
  importedHere(jobIds: string[]): Promise<void>;
}

export const BRIDGE_KEY = 'shotfarm';

/** Rejections carry the envelope as a plain object: contextBridge keeps plain objects, not Error fields. */
function unwrap(answer: unknown): unknown {
  const a = callAnswerSchema.safeParse(answer);
  if (!a.success) throw envelope('internal', 'The app answered in an unexpected shape.');
  if (a.data.ok) return a.data.result;
  throw a.data.error;
}

function unreachable(err: unknown): ErrorEnvelope {
  const e = errorEnvelopeSchema.safeParse(err);
  if (e.success) return e.data;
  return envelope('unavailable', `The app did not answer: ${err instanceof Error ? err.message : String(err)}`);
}

function isShotListFile(v: unknown): v is ShotListFile {
  const f = v as Partial<ShotListFile> | null;
  return !!f && typeof f === 'object' && typeof f.fileName === 'string' && typeof f.content === 'string' && typeof f.baseDir === 'string';
}

export function createShotfarmBridge(ipc: IpcRendererLike): ShotfarmBridge {
  const subscribers = new Map<string, Set<(payload: unknown) => void>>();
  let listening = false;

  // One IPC listener for all topics, installed on first subscribe; the page gets payloads only.
  function listen(): void {
    if (listening) return;
    listening = true;
    ipc.on(CHANNELS.event, (_event, topic, payload) => {
      if (!isBridgeTopic(topic)) return;
      for (const fn of subscribers.get(topic) ?? []) {
        try {
          fn(payload);
        } catch {
          // A failing page listener must not stop the others.
        }
      }
    });
  }

  const invokeChecked = async (channel: string, ...args: unknown[]): Promise<unknown> => {
    let answer: unknown;
    try {
      answer = await ipc.invoke(channel, ...args);
    } catch (err) {
      throw unreachable(err);
    }
    return unwrap(answer);
  };

  const bridge: ShotfarmBridge = {
    call(method, input) {
      if (!isApiMethod(method)) {
        return Promise.reject(envelope('not_found', `Unknown method ${String(method).slice(0, 80)}.`));
      }
      const refused = localOnlyRefusal(method);
      if (refused) return Promise.reject(refused);
      if (!isPageMethod(method)) {
        return Promise.reject(envelope('conflict', `${method} is not available to the app's page; use the shotfarm command line on this machine.`));
      }
      return ipc.invoke(CHANNELS.call, method, input).then(unwrap, (err: unknown) => {
        throw unreachable(err);
      });
    },
    subscribe(topic, fn) {
      if (!isBridgeTopic(topic)) throw new TypeError(`Unknown event topic ${String(topic).slice(0, 80)}.`);
      if (typeof fn !== 'function') throw new TypeError('subscribe needs a listener function.');
      listen();
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      set.add(fn);
      return () => void set.delete(fn);
    },
    async openShotListDialog() {
      let answer: unknown;
      try {
        answer = await ipc.invoke(CHANNELS.openShotList);
      } catch (err) {
        throw unreachable(err);
      }
      const file = unwrap(answer);
      if (file === null) return null;
      if (!isShotListFile(file)) throw envelope('internal', 'The file dialog answered in an unexpected shape.');
      return { fileName: file.fileName, content: file.content, baseDir: file.baseDir };
    },
    async revealFile(path) {
      if (typeof path !== 'string' || path.length === 0 || path.length > 4096) throw envelope('bad_input', 'revealFile needs a file path.');
      let answer: unknown;
      try {
        answer = await ipc.invoke(CHANNELS.revealFile, path);
      } catch (err) {
        throw unreachable(err);
      }
      unwrap(answer);
    },
    async studioFarm() {
      const state = (await invokeChecked(CHANNELS.studio)) as { farm?: { origin?: unknown; token?: unknown } | null; askJoin?: unknown } | null;
      const f = state?.farm;
      const farmOk = f === null || (typeof f?.origin === 'string' && typeof f.token === 'string');
      if (!state || !farmOk || typeof state.askJoin !== 'boolean') throw envelope('internal', 'The app answered the studio farm in an unexpected shape.');
      return { farm: f ? { origin: f.origin as string, token: f.token as string } : null, askJoin: state.askJoin };
    },
    async joinStudio(url, token) {
      if (typeof url !== 'string' || url.length > 2_048 || typeof token !== 'string' || token.length > 4_096) throw envelope('bad_input', 'joinStudio needs the farm\'s address and a token.');
      await invokeChecked(CHANNELS.joinStudio, url, token);
    },
    async importedHere(jobIds) {
      if (!Array.isArray(jobIds) || jobIds.some((id) => typeof id !== 'string')) throw envelope('bad_input', 'importedHere needs job ids.');
      await invokeChecked(CHANNELS.importedHere, jobIds.slice(0, 100_000));
    },
  };
  return Object.freeze(bridge);
}

/** The preload's whole job: expose the bridge under one key. */
export function exposeBridge(contextBridge: ContextBridgeLike, ipc: IpcRendererLike): void {
  contextBridge.exposeInMainWorld(BRIDGE_KEY, createShotfarmBridge(ipc));
}
