/**
 * Picks the transport: in the desktop app the preload bridge says which farm (its own engine over
 * IPC, or a studio farm over HTTP/WebSocket: desktop-client.ts); in a browser, the server it came from.
 */
import type { ShotfarmClient } from './client.js';
import { createDesktopClient } from './desktop-client.js';
import { takeToken } from './page-token.js';
import { createWsClient } from './ws-transport.js';

export async function createClient(): Promise<ShotfarmClient> {
  return window.shotfarm ? createDesktopClient(window.shotfarm) : createWsClient({ baseUrl: window.location.origin, token: takeToken() });
}

export * from './client.js';
