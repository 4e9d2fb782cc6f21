/** Picks the transport: the Electron preload bridge when present, else the headless server. */
import type { ShotfarmClient } from './client.js';
import { createIpcClient } from './ipc-transport.js';
import { takeToken } from './page-token.js';
import { createWsClient } from './ws-transport.js';

export function createClient(): ShotfarmClient {
  return window.shotfarm ? createIpcClient(window.shotfarm) : createWsClient({ baseUrl: window.location.origin, token: takeToken() });
}

export * from './client.js';
