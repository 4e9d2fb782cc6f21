/**
 * The main process's IPC: `ipcMain.handle` on the fixed channels only, each answering only the
 * app's own page (sender check), each delegating to ipc-policy.ts. Engine events go to the window
 * on one fixed channel.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { toErrorEnvelope } from '../../shared/errors.js';
import {
  CHANNELS,
  type BridgeEventMap,
  type BridgeTopic,
  type JoinAnswer,
  type OpenShotListAnswer,
  type RevealAnswer,
  type ShotListFile,
  type StudioAnswer,
  type StudioFarm,
} from '../preload/channels.js';
import { answerCall, answerSaveExport, checkRevealPath, PickedFolders, type CallTarget } from './ipc-policy.js';
import { isTrustedSender } from './security.js';

/** The window's web contents as far as pushing events goes (tests pass a fake). */
export type PageContents = Pick<WebContents, 'send' | 'isDestroyed'>;

export interface IpcDeps {
  /** Only `handle` is used: the page invokes, it never sends on a channel of its choosing. */
  ipcMain: Pick<IpcMain, 'handle'>;
  indexHtml: string;
  host: CallTarget;
  exportDir: string;
  openShotList(): Promise<ShotListFile | null>;
  /** The OS save dialog for an export, proposing `defaultName`; null when cancelled. */
  chooseExportPath(defaultName: string): Promise<string | null>;
  reveal(path: string): void;
  log(message: string): void;
  /** The farm choice (farm-choice.ts): the studio farm joined (null on "This computer"), joining one, jobs imported here. */
  studio?: StudioPort;
}

export interface StudioPort {
  farm(): StudioFarm | null;
  /** True once after the first start's "Studio Farm…": the page shows the join form. */
  takeJoinRequest(): boolean;
  join(url: string, token: string): Promise<void>;
  importedHere(jobIds: readonly string[]): void;
}

export function registerIpc(d: IpcDeps): void {
  // The folders of the files the operator picked in the dialog: the only import baseDirs accepted.
  const picked = new PickedFolders();
  const guard = (event: IpcMainInvokeEvent, channel: string): void => {
    if (!isTrustedSender(event.senderFrame, d.indexHtml)) {
      d.log(`refused ${channel} from ${event.senderFrame?.url.slice(0, 200) ?? 'a closed frame'}`);
      throw new Error('This page may not use Shotfarm.');
    }
  };
  d.ipcMain.handle(CHANNELS.call, (event, method: unknown, input: unknown) => {
    guard(event, CHANNELS.call);
    return answerCall(d.host, method, input, { exportDir: d.exportDir, picked });
  });
  d.ipcMain.handle(CHANNELS.openShotList, async (event): Promise<OpenShotListAnswer> => {
    guard(event, CHANNELS.openShotList);
    try {
      const file = await d.openShotList();
      if (file) picked.add(file.baseDir);
      return { ok: true, result: file };
    } catch (err) {
      return { ok: false, error: toErrorEnvelope(err) };
    }
  });
  d.ipcMain.handle(CHANNELS.studio, (event): StudioAnswer => {
    guard(event, CHANNELS.studio);
    return { ok: true, result: { farm: d.studio?.farm() ?? null, askJoin: d.studio?.takeJoinRequest() ?? false } };
  });
  d.ipcMain.handle(CHANNELS.joinStudio, async (event, url: unknown, token: unknown): Promise<JoinAnswer> => {
    guard(event, CHANNELS.joinStudio);
    if (!d.studio) return { ok: false, error: toErrorEnvelope(new Error('This app cannot join a studio farm.')) };
    if (typeof url !== 'string' || typeof token !== 'string')
      return { ok: false, error: toErrorEnvelope(new Error("Give the farm's address and your token.")) };
    try {
      await d.studio.join(url, token);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: toErrorEnvelope(err) };
    }
  });
  d.ipcMain.handle(CHANNELS.importedHere, (event, ids: unknown): { ok: true } => {
    guard(event, CHANNELS.importedHere);
    if (Array.isArray(ids))
      d.studio?.importedHere(ids.filter((id): id is string => typeof id === 'string').slice(0, 100_000));
    return { ok: true };
  });
  d.ipcMain.handle(CHANNELS.revealFile, async (event, path: unknown): Promise<RevealAnswer> => {
    guard(event, CHANNELS.revealFile);
    const checked = await checkRevealPath(path);
    if (!checked.ok) return checked;
    d.reveal(checked.path);
    return { ok: true };
  });
  d.ipcMain.handle(CHANNELS.saveExport, (event, kind: unknown, filter: unknown) => {
    guard(event, CHANNELS.saveExport);
    return answerSaveExport(d.host, kind, filter, d.chooseExportPath);
  });
}

/** Pushes one event to the page, if it is still there. */
export function sendToPage<T extends BridgeTopic>(
  contents: PageContents | null | undefined,
  topic: T,
  payload: BridgeEventMap[T],
): void {
  if (!contents || contents.isDestroyed()) return;
  contents.send(CHANNELS.event, topic, payload);
}
