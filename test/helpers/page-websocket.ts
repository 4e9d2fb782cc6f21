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

/** Makes `WebSocket` a global where there is none; returns the undo. */
export function providePageWebSocket(): () => void {
  const g = globalThis as { WebSocket?: unknown };
  if (g.WebSocket !== undefined) return () => undefined;
  g.WebSocket = PageWebSocket;
  return () => void delete g.WebSocket;
}
