/**
 * What the renderer's headless transport (renderer/client/ws-transport.ts) needs of a browser, in
 * Node: `fetch` Node has; a global `WebSocket` Node 20 lacks, so the `ws` package's stands in (it
 * has the browser's onopen/onmessage/onclose interface). One difference is bridged: a browser
 * socket that fails to connect fires an `error` event nobody has to handle, while `ws` throws an
 * error no one listens for — so every socket gets a listener that does nothing, as a page's would.
 */
import WebSocket from 'ws';

class PageWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    this.on('error', () => undefined);
  }
}

/** A page from the app's own files (the desktop app in studio mode): Chromium sends `Origin: null` on its sockets. */
class DesktopPageWebSocket extends PageWebSocket {
  constructor(address: string | URL, protocols?: string | string[]) {
    super(address, protocols, { headers: { origin: 'null' } });
  }
}

/**
 * Makes `WebSocket` a global where there is none; returns the undo. `desktopOrigin`: sockets say
 * `Origin: null`, as the desktop app's page does.
 */
export function providePageWebSocket(o: { desktopOrigin?: boolean } = {}): () => void {
  const g = globalThis as { WebSocket?: unknown };
  if (g.WebSocket !== undefined) return () => undefined;
  g.WebSocket = o.desktopOrigin ? DesktopPageWebSocket : PageWebSocket;
  return () => void delete g.WebSocket;
}
