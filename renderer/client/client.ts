/**
 * The renderer's one view of the engine: the typed contract plus events. Two transports implement
 * it — HTTP + WebSocket for the headless server (ws-transport.ts) and the Electron preload bridge
 * (ipc-transport.ts); nothing else in the renderer knows which one it talks to. What only a desktop
 * shell can do (a native file dialog, "show in folder", menu commands, engine restarts) is the
 * optional `shell` capability: the UI offers those actions when it is present, never by asking
 * which transport it has.
 */
import type { ApiInput, ApiMethod, ApiOutputs } from '../../shared/api.js';
import type { ExportResult } from '../../shared/domain.js';
import type { ExportFilterInput, ExportKind } from '../../shared/exports.js';
import type { ErrorEnvelope } from '../../shared/errors.js';
import type { EventMap, EventTopic } from '../../shared/events.js';
import type { AppView } from '../../shared/app-views.js';

export type ConnectionState = 'connecting' | 'online' | 'offline';

export interface ServerInfo {
  name: string;
  demoLabel: string | null;
  tokenRequired: boolean;
  /** Where the server writes CSV exports (file names are relative to it); null in the desktop app. */
  exportDir: string | null;
}

export interface ShotfarmClient {
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutputs[M]>;
  subscribe<T extends EventTopic>(topic: T, fn: (payload: EventMap[T]) => void): () => void;
  /** Called with the current state at once and on every change; `online` after a reconnect means "refetch". */
  onConnection(fn: (state: ConnectionState) => void): () => void;
  info(): Promise<ServerInfo>;
  /** A URL the page can load an asset's file from, or null when this transport cannot show files. */
  assetUrl(id: string): string | null;
  /**
   * A URL that downloads a CSV export (the server streams it; nothing is written on its disk), or
   * null where exports are saved through the shell's save dialog instead.
   */
  exportUrl(kind: ExportKind, filter: ExportFilterInput): string | null;
  /**
   * Sends one input file of a shot list to the farm (PUT /api/uploads/<sha256>, shared/uploads.ts);
   * present when the farm is across a network (the browser, the desktop in studio mode) — a local
   * engine reads inputs from the list's own folder. Rejects with an `ApiError`.
   */
  uploadInput?(sha256: string, name: string, file: Blob): Promise<void>;
  /** Present only in a desktop shell. */
  shell?: ShellCapability;
  /** Which farm the desktop app works on, and joining a studio farm; present only in the desktop app (both modes). */
  farmChoice?: FarmChoiceCapability;
  /** Signing this browser in and out of a farm with people; present only in a browser page of `serve`. */
  signIn?: SignInCapability;
}

/**
 * Why the page is not signed in: no token yet, a token the farm does not know or revoked, too many
 * wrong tokens from this address (`slowed`), or the person signed out.
 */
export type SignInReason = 'missing' | 'unknown' | 'revoked' | 'slowed' | 'signed-out';

export type SignInState = { signedIn: true } | { signedIn: false; reason: SignInReason; message: string };

export interface SignInCapability {
  state(): SignInState;
  /** Called on every change (a sign-in, a sign-out, a revoked token noticed by any request). */
  onChange(fn: (state: SignInState) => void): () => void;
  /** Sends the token once; the server keeps it in an HttpOnly cookie. Resolves with the new state. */
  signIn(token: string): Promise<SignInState>;
  signOut(): Promise<void>;
}

export interface FarmChoiceCapability {
  mode: 'local' | 'studio';
  /** The studio farm's origin in studio mode, else null. */
  origin: string | null;
  /** The first start's choice was "Studio Farm…": show the join form at once. */
  askJoin: boolean;
  /** Checks the farm answers with this token, keeps it (encrypted) and restarts the app on it. Rejects with an `ApiError`. */
  join(url: string, token: string): Promise<void>;
  /** File → Studio Farm… asks the page for the address and token. */
  onJoinRequest(fn: () => void): () => void;
}

/** A shot list the shell's file dialog read, with its folder (relative input paths resolve against it). */
export interface PickedShotList {
  fileName: string;
  content: string;
  baseDir: string;
}

/** What a menu item asks the page to do. */
export type ShellCommand = { command: 'import' } | { command: 'show-view'; view: AppView };

export interface EngineRestart {
  /** Restarts since the app started. */
  restarts: number;
  reason: string;
}

export interface ShellCapability {
  /** The OS file dialog; null when cancelled. Rejects with an `ApiError`. */
  openShotList(): Promise<PickedShotList | null>;
  /** Shows a file in the OS file manager. Rejects with an `ApiError`. */
  revealFile(path: string): Promise<void>;
  /** The OS save dialog, then the engine writes the export there; null when cancelled. Rejects with an `ApiError`. */
  saveExport(kind: ExportKind, filter: ExportFilterInput): Promise<ExportResult | null>;
  onCommand(fn: (command: ShellCommand) => void): () => void;
  /** The engine process was replaced: events may have been missed, so the page refetches. */
  onEngineRestarted(fn: (notice: EngineRestart) => void): () => void;
}

/** What a failed call rejects with: the contract's envelope, readable by the operator. */
export class ApiError extends Error {
  readonly envelope: ErrorEnvelope;
  constructor(envelope: ErrorEnvelope) {
    super(envelope.message);
    this.name = 'ApiError';
    this.envelope = envelope;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.envelope.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
