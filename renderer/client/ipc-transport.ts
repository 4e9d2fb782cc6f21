/**
 * The desktop app's transport: `window.shotfarm`, exposed by the Electron preload (bridge.d.ts).
 * IPC to the engine does not drop like a socket, so the connection is `online` from the start;
 * errors come back as the contract's envelope, which the preload passes through as a plain object.
 *
 * The shell's own events arrive on the same bridge: `engine.restarted` (the engine process was
 * replaced; the store refetches as after a reconnect) and `shell.command` (menu items: import,
 * show a view). Payloads are checked here so a malformed one is dropped, not acted on.
 * Thumbnails load from `shotfarm-asset://<id>`, a scheme the main process serves for ledger ids only.
 */
import { z } from 'zod';
import type { ApiInput, ApiMethod, ApiOutputs } from '../../shared/api.js';
import { ASSET_ID_PATTERN } from '../../shared/domain.js';
import type { EventMap, EventTopic } from '../../shared/events.js';
import { APP_VIEWS } from '../../shared/app-views.js';
import type { ShotfarmBridge } from './bridge.js';
import {
  ApiError,
  type EngineRestart,
  type ServerInfo,
  type ShellCapability,
  type ShellCommand,
  type ShotfarmClient,
} from './client.js';
import { callAnswer, isTopic, transportError } from './wire.js';

/** The scheme electron/main/asset-protocol.ts serves. */
export const ASSET_SCHEME = 'shotfarm-asset';

const shellCommand = z.discriminatedUnion('command', [
  z.object({ command: z.literal('import') }),
  z.object({ command: z.literal('show-view'), view: z.enum(APP_VIEWS) }),
]);
const engineRestart = z.object({ restarts: z.number().int().min(0), reason: z.string() });
const pickedFile = z.object({ fileName: z.string().min(1), content: z.string(), baseDir: z.string() }).nullable();
const savedExport = z
  .object({ path: z.string(), rows: z.number().int().min(0), bytes: z.number().int().min(0) })
  .nullable();

function asEnvelopeError(err: unknown): ApiError {
  // The preload rejects with the envelope (structured clone keeps plain objects, not Error subclasses).
  const maybe = callAnswer.safeParse({ ok: false, error: (err as { envelope?: unknown })?.envelope ?? err });
  if (maybe.success && !maybe.data.ok) return new ApiError(maybe.data.error);
  return new ApiError(transportError(err instanceof Error ? err.message : 'The engine did not answer.', false));
}

export function ipcAssetUrl(id: string): string | null {
  return ASSET_ID_PATTERN.test(id) ? `${ASSET_SCHEME}://${id.toLowerCase()}` : null;
}

function createShell(bridge: ShotfarmBridge): ShellCapability {
  return {
    async openShotList() {
      let answer: unknown;
      try {
        answer = await bridge.openShotListDialog();
      } catch (err) {
        throw asEnvelopeError(err);
      }
      const file = pickedFile.safeParse(answer);
      if (!file.success)
        throw new ApiError({
          code: 'internal',
          message: 'The file dialog answered in an unexpected shape.',
          retryable: false,
        });
      return file.data;
    },
    async revealFile(path) {
      try {
        await bridge.revealFile(path);
      } catch (err) {
        throw asEnvelopeError(err);
      }
    },
    async saveExport(kind, filter) {
      let answer: unknown;
      try {
        answer = await bridge.saveExport(kind, { ...filter });
      } catch (err) {
        throw asEnvelopeError(err);
      }
      const saved = savedExport.safeParse(answer);
      if (!saved.success)
        throw new ApiError({
          code: 'internal',
          message: 'The export answered in an unexpected shape.',
          retryable: false,
        });
      return saved.data;
    },
    onCommand(fn: (command: ShellCommand) => void) {
      return bridge.subscribe('shell.command', (payload) => {
        const c = shellCommand.safeParse(payload);
        if (c.success) fn(c.data);
      });
    },
    onEngineRestarted(fn: (notice: EngineRestart) => void) {
      return bridge.subscribe('engine.restarted', (payload) => {
        const n = engineRestart.safeParse(payload);
        if (n.success) fn(n.data);
      });
    },
  };
}

export function createIpcClient(bridge: ShotfarmBridge): ShotfarmClient {
  return {
    async call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutputs[M]> {
      try {
        return (await bridge.call(method, input)) as ApiOutputs[M];
      } catch (err) {
        throw asEnvelopeError(err);
      }
    },
    subscribe<T extends EventTopic>(topic: T, fn: (payload: EventMap[T]) => void) {
      if (!isTopic(topic)) return () => undefined;
      return bridge.subscribe(topic, (payload) => fn(payload as EventMap[T]));
    },
    onConnection(fn) {
      fn('online');
      return () => undefined;
    },
    async info(): Promise<ServerInfo> {
      return { name: 'Shotfarm', demoLabel: null, tokenRequired: false, exportDir: null };
    },
    assetUrl: ipcAssetUrl,
    // The desktop app saves exports where its save dialog says (shell.saveExport).
    exportUrl: () => null,
    shell: createShell(bridge),
  };
}
