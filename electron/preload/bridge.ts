/**
 * What the preload hands the page as `window.shotfarm`: the contract's `call` and `subscribe`, and
 * three shell capabilities (open a shot list, show a file, save an export where the save dialog says). Nothing else crosses: not `ipcRenderer`, not a channel name, not the IPC
 * event object (its `sender` would give the page the raw IPC). Method names are checked against
 * the contract (the local-only methods refused, as the headless server refuses them) and then
 * against the methods the page's views use (PAGE_METHODS), and topics against the event map,
 * before anything is sent — so a compromised page can only ask for what the UI itself does, and
 * the main process checks again.
 *
 * Written against small interfaces (not Electron's) so tests pass fakes; preload.ts wires the real ones.
 */
import type { ExportResult } from '../../shared/domain.js';
import { isExportKind } from '../../shared/exports.js';
import {
  callAnswerSchema,
  errorEnvelope as envelope,
  errorEnvelopeSchema,
  type ErrorEnvelope,
} from '../../shared/errors.js';
import { isApiMethod } from '../../shared/api.js';
import { desktopPageRefusal } from '../engine/hosting/reach-refusal.js';
import { CHANNELS, isBridgeTopic, type ShotListFile, type StudioState } from './channels.js';

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
  /** The OS save dialog for a CSV export, then the engine writes it there; null when cancelled. */
  saveExport(kind: string, filter: Record<string, unknown>): Promise<ExportResult | null>;
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

function isExportResult(v: unknown): v is ExportResult {
  const r = v as Partial<ExportResult> | null;
  return (
    !!r &&
    typeof r === 'object' &&
    typeof r.path === 'string' &&
    typeof r.rows === 'number' &&
    typeof r.bytes === 'number'
  );
}

function isShotListFile(v: unknown): v is ShotListFile {
  const f = v as Partial<ShotListFile> | null;
  return (
    !!f &&
    typeof f === 'object' &&
    typeof f.fileName === 'string' &&
    typeof f.content === 'string' &&
    typeof f.baseDir === 'string'
  );
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

  /** A shell request on its fixed channel: the answer's result, or its envelope thrown (also when IPC itself failed). */
  const invoke = async (channel: string, ...args: unknown[]): Promise<unknown> => {
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
      const refused = desktopPageRefusal(method, input);
      if (refused) return Promise.reject(refused);
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
      const file = await invoke(CHANNELS.openShotList);
      if (file === null) return null;
      if (!isShotListFile(file)) throw envelope('internal', 'The file dialog answered in an unexpected shape.');
      return { fileName: file.fileName, content: file.content, baseDir: file.baseDir };
    },
    async revealFile(path) {
      if (typeof path !== 'string' || path.length === 0 || path.length > 4096)
        throw envelope('bad_input', 'revealFile needs a file path.');
      await invoke(CHANNELS.revealFile, path);
    },
    async saveExport(kind, filter) {
      if (!isExportKind(kind)) throw envelope('bad_input', 'saveExport needs runlog or ledger.');
      if (!filter || typeof filter !== 'object' || Array.isArray(filter))
        throw envelope('bad_input', 'saveExport needs a filter object.');
      const result = await invoke(CHANNELS.saveExport, kind, filter);
      if (result === null) return null;
      if (!isExportResult(result)) throw envelope('internal', 'The export answered in an unexpected shape.');
      return { path: result.path, rows: result.rows, bytes: result.bytes };
    },
    async studioFarm() {
      const state = (await invoke(CHANNELS.studio)) as {
        farm?: { origin?: unknown; token?: unknown } | null;
        askJoin?: unknown;
      } | null;
      const f = state?.farm;
      const farmOk = f === null || (typeof f?.origin === 'string' && typeof f.token === 'string');
      if (!state || !farmOk || typeof state.askJoin !== 'boolean')
        throw envelope('internal', 'The app answered the studio farm in an unexpected shape.');
      return { farm: f ? { origin: f.origin as string, token: f.token as string } : null, askJoin: state.askJoin };
    },
    async joinStudio(url, token) {
      if (typeof url !== 'string' || url.length > 2_048 || typeof token !== 'string' || token.length > 4_096)
        throw envelope('bad_input', "joinStudio needs the farm's address and a token.");
      await invoke(CHANNELS.joinStudio, url, token);
    },
    async importedHere(jobIds) {
      if (!Array.isArray(jobIds) || jobIds.some((id) => typeof id !== 'string'))
        throw envelope('bad_input', 'importedHere needs job ids.');
      await invoke(CHANNELS.importedHere, jobIds.slice(0, 100_000));
    },
  };
  return Object.freeze(bridge);
}

/** The preload's whole job: expose the bridge under one key. */
export function exposeBridge(contextBridge: ContextBridgeLike, ipc: IpcRendererLike): void {
  contextBridge.exposeInMainWorld(BRIDGE_KEY, createShotfarmBridge(ipc));
}
