/**
 * The fixed names shared by the preload and the main process: the IPC channels (a fixed set,
 * never a channel chosen by the page), and the topics a page may subscribe to — the engine's
 * wire topics (shared/events.ts, the one list) plus the two the desktop shell adds.
 */
import type { ApiMethod } from '../../shared/api.js';
import { DESKTOP_PAGE_METHODS } from '../../shared/methods.js';
import type { AppView } from '../../shared/app-views.js';
import type { ExportResult } from '../../shared/domain.js';
import type { CallAnswer, ErrorEnvelope } from '../../shared/errors.js';
import { WIRE_TOPICS, type EventMap, type WireTopic } from '../../shared/events.js';

export const CHANNELS = {
  /** renderer → main (invoke): `(method, input)` → `CallAnswer`. */
  call: 'shotfarm:call',
  /** renderer → main (invoke): `()` → `OpenShotListAnswer` (result null when the dialog was cancelled). */
  openShotList: 'shotfarm:open-shot-list',
  /** renderer → main (invoke): `(path)` → `RevealAnswer`. */
  revealFile: 'shotfarm:reveal-file',
  /** renderer → main (invoke): `(kind, filter)` → `SaveExportAnswer`: the save dialog, then the engine writes there (null when cancelled). */
  saveExport: 'shotfarm:save-export',
  /** main → renderer (send): `(topic, payload)`. */
  event: 'shotfarm:event',
  /** renderer → main (invoke): `()` → `StudioAnswer`: the studio farm this app joined (origin and token; null on "This computer"), and whether to ask for one now. */
  studio: 'shotfarm:studio',
  /** renderer → main (invoke): `(url, token)` → `JoinAnswer`: checks the farm answers with that token, keeps both, restarts the app on it. */
  joinStudio: 'shotfarm:join-studio',
  /** renderer → main (invoke): `(jobIds)` → `{ok:true}`: jobs imported in this app (studio mode's desktop notifications are for these only). */
  importedHere: 'shotfarm:imported-here',
} as const;

/**
 * The contract methods the app's page calls — exactly those the renderer uses (a test reads
 * renderer/ and holds the two equal), and nothing else: the method table's `studio` and `desktop`
 * reaches (shared/methods.ts). The settings, hooks, storage, release and job-id methods stay with
 * the CLI on this machine, so a page that ran someone else's script still could not set a hook,
 * point a release anywhere or change where outputs go. Checked in the preload and again in the
 * main process (hosting/reach-refusal.ts).
 */
export const PAGE_METHODS: ReadonlySet<ApiMethod> = DESKTOP_PAGE_METHODS;

/** What `call` answers over IPC: rejections would lose the envelope's fields, so errors are values. */
export type { CallAnswer };

export interface ShotListFile {
  fileName: string;
  content: string;
  /** The folder the file is in: relative input paths of the shot list are resolved against it. */
  baseDir: string;
}

export type OpenShotListAnswer = { ok: true; result: ShotListFile | null } | { ok: false; error: ErrorEnvelope };

export type RevealAnswer = { ok: true } | { ok: false; error: ErrorEnvelope };

export type SaveExportAnswer = { ok: true; result: ExportResult | null } | { ok: false; error: ErrorEnvelope };

/** The studio farm as the page's transport needs it: where, and the token it sends (studio mode only). */
export interface StudioFarm {
  origin: string;
  token: string;
}

/** What the page learns at start: the farm, and whether the first start's choice was "Studio Farm…" (show the join form). */
export interface StudioState {
  farm: StudioFarm | null;
  askJoin: boolean;
}

export type StudioAnswer = { ok: true; result: StudioState };
export type JoinAnswer = { ok: true } | { ok: false; error: ErrorEnvelope };

/** Events the desktop shell publishes besides the engine's. */
export interface ShellEventMap {
  /** The engine process died and a new one is up; running attempts were reconciled, so refetch. */
  'engine.restarted': { restarts: number; reason: string };
  /** A menu item asks the page to do something (the page owns navigation and the import dialog). */
  'shell.command': { command: 'import' } | { command: 'show-view'; view: AppView } | { command: 'join-studio' };
}

export type BridgeEventMap = Pick<EventMap, WireTopic> & ShellEventMap;
export type BridgeTopic = keyof BridgeEventMap;

export const SHELL_TOPICS = ['engine.restarted', 'shell.command'] as const satisfies readonly (keyof ShellEventMap)[];

export const BRIDGE_TOPICS: readonly BridgeTopic[] = [...WIRE_TOPICS, ...SHELL_TOPICS];

export function isBridgeTopic(t: unknown): t is BridgeTopic {
  return typeof t === 'string' && (BRIDGE_TOPICS as readonly string[]).includes(t);
}
