/**
 * The desktop app's client: on "This computer", the IPC transport to its own engine; in studio
 * mode (the app joined a studio farm), the same HTTP/WebSocket transport a browser uses, straight
 * to that farm's origin (the window's CSP allows exactly it), with the token the preload handed over
 * — held in this closure only, never in storage, the URL bar or any URL: calls send it in a header,
 * the events socket and file links carry short-lived tickets (tickets.ts). Both get the farm-choice capability
 * (the join form); studio mode also tells the shell which jobs were imported here, since desktop
 * notifications are for those only.
 */
import type { ShotfarmBridge } from './bridge.js';
import { ApiError, type FarmChoiceCapability, type ShotfarmClient } from './client.js';
import { createIpcClient } from './ipc-transport.js';
import { callAnswer, transportError } from './wire.js';
import { createWsClient, type WsClient } from './ws-transport.js';

function choice(bridge: ShotfarmBridge, origin: string | null, askJoin: boolean): FarmChoiceCapability {
  return {
    mode: origin === null ? 'local' : 'studio',
    origin,
    askJoin,
    join: (url, token) =>
      bridge.joinStudio(url, token).catch((err: unknown) => {
        // The preload rejects with the envelope as a plain object.
        const answer = callAnswer.safeParse({ ok: false, error: err });
        throw new ApiError(
          answer.success && !answer.data.ok ? answer.data.error : transportError('The app did not answer.', false),
        );
      }),
    onJoinRequest(fn) {
      return bridge.subscribe('shell.command', (payload) => {
        if ((payload as { command?: unknown } | null)?.command === 'join-studio') fn();
      });
    },
  };
}

export async function createDesktopClient(bridge: ShotfarmBridge): Promise<ShotfarmClient & { close?: () => void }> {
  const { farm: studio, askJoin } = await bridge.studioFarm();
  if (!studio) return { ...createIpcClient(bridge), farmChoice: choice(bridge, null, askJoin) };
  const ws: WsClient = createWsClient({ baseUrl: studio.origin, token: studio.token, absoluteUrls: true });
  // The first thumbnails are drawn with a ticket in their links (an unreachable farm does not hold the page: it shows its banner).
  await ws.linksReady;
  return {
    ...ws,
    async call(method, input) {
      const result = await ws.call(method, input);
      if (method === 'import.commit') {
        const ids = (result as { jobIds?: unknown }).jobIds;
        if (Array.isArray(ids))
          void bridge.importedHere(ids.filter((id): id is string => typeof id === 'string')).catch(() => undefined);
      }
      return result;
    },
    farmChoice: choice(bridge, studio.origin, askJoin),
  };
}
