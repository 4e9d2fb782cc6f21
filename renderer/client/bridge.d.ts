/**
 * What the Electron preload exposes on `window.shotfarm` (contextBridge): the contract's `call` and
 * event `subscribe`, and three shell capabilities (the OS file dialog for a shot list, "show in
 * folder", the save dialog for a CSV export). The preload checks method names and topics against the contract; the main process
 * checks again. Mirrors electron/preload/bridge.ts and channels.ts (the renderer may not import
 * them); test/unit/preload-bridge.test.ts fails to compile when the two drift apart.
 */
import type { AppView } from '../../shared/app-views.js';

/** A shot list chosen in the desktop file dialog, read by the main process. */
export interface BridgeShotListFile {
  fileName: string;
  content: string;
  /** The folder the file is in: relative input paths of the shot list are resolved against it. */
  baseDir: string;
}

/** Events the desktop shell publishes besides the engine's (electron/preload/channels.ts). */
export interface BridgeShellEventMap {
  /** The engine process died and a new one is up; running attempts were reconciled, so refetch. */
  'engine.restarted': { restarts: number; reason: string };
  /** A menu item asks the page to do something (the page owns navigation and the import dialog). */
  'shell.command': { command: 'import' } | { command: 'show-view'; view: AppView } | { command: 'join-studio' };
}

export type BridgeShellTopic = keyof BridgeShellEventMap;

export interface ShotfarmBridge {
  call(method: string, input: unknown): Promise<unknown>;
  subscribe(topic: string, fn: (payload: unknown) => void): () => void;
  /** Resolves null when the operator cancelled the dialog; rejects with an error envelope. */
  openShotListDialog(): Promise<BridgeShotListFile | null>;
  /** Shows a file in the OS file manager; rejects with an error envelope. */
  revealFile(path: string): Promise<void>;
  /** The OS save dialog for a CSV export, then the engine writes it there; null when cancelled. Rejects with an error envelope. */
  saveExport(kind: string, filter: Record<string, unknown>): Promise<BridgeExportResult | null>;
  /** The studio farm this app joined (origin, and the token the transport sends), or null on "This computer". */
  studioFarm(): Promise<BridgeStudioState>;
  /** Joins a studio farm: the main process checks it, keeps the token encrypted, restarts the app on it. */
  joinStudio(url: string, token: string): Promise<void>;
  /** Jobs imported in this app (studio mode notifies about these only). */
  importedHere(jobIds: string[]): Promise<void>;
}

/** What a saved export wrote (the contract's ExportResult). */
export interface BridgeExportResult {
  path: string;
  rows: number;
  bytes: number;
}

export interface BridgeStudioFarm {
  origin: string;
  token: string;
}

/** The farm, and whether the first start's choice was "Studio Farm…" (the page shows the join form). */
export interface BridgeStudioState {
  farm: BridgeStudioFarm | null;
  askJoin: boolean;
}

declare global {
  interface Window {
    shotfarm?: ShotfarmBridge;
  }
}
