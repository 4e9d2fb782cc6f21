/**
 * Electron's IPC between the main process and one page, in memory: the page's `ipcRenderer.invoke`
 * reaches the handler `ipcMain.handle` registered, and the window's `webContents.send` reaches the
 * page's `ipcRenderer.on` listeners. Arguments and answers are structured-cloned as Electron does,
 * so what cannot cross (functions, an Error's own fields, prototypes) does not cross here either; a
 * handler that throws rejects the invoke with a plain Error in Electron's wording, and events arrive
 * later, not inside `send`. The invoking frame is the app's own top frame at `pageUrl`.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { PageContents } from '../../electron/main/ipc.js';
import type { IpcRendererLike } from '../../electron/preload/bridge.js';

type Handler = Parameters<IpcMain['handle']>[1];
type PageListener = (event: unknown, ...args: unknown[]) => void;

export interface FakeElectronIpc {
  ipcMain: Pick<IpcMain, 'handle'>;
  ipcRenderer: IpcRendererLike;
  /** The window's webContents, as the main process pushes events to the page. */
  contents: PageContents;
}

export function fakeElectronIpc(o: { pageUrl: string }): FakeElectronIpc {
  const handlers = new Map<string, Handler>();
  const listeners = new Map<string, Set<PageListener>>();
  // What the sender check reads of the invoking frame; the rest of Electron's event is not used.
  const invokeEvent = { senderFrame: { url: o.pageUrl, parent: null } } as unknown as IpcMainInvokeEvent;

  const ipcMain: Pick<IpcMain, 'handle'> = {
    handle(channel, handler) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, handler);
    },
  };

  const ipcRenderer: IpcRendererLike = {
    async invoke(channel, ...args) {
      const handler = handlers.get(channel);
      if (!handler)
        throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
      let answer: unknown;
      try {
        answer = await handler(invokeEvent, ...structuredClone(args));
      } catch (err) {
        throw new Error(`Error invoking remote method '${channel}': ${String(err)}`);
      }
      return structuredClone(answer);
    },
    on(channel, listener) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      return ipcRenderer;
    },
  };

  const contents: PageContents = {
    send(channel: string, ...args: unknown[]) {
      const cloned = structuredClone(args);
      queueMicrotask(() => {
        for (const listener of listeners.get(channel) ?? [])
          listener({ sender: 'the IPC event, never handed to the page' }, ...cloned);
      });
    },
    isDestroyed: () => false,
  };

  return { ipcMain, ipcRenderer, contents };
}
