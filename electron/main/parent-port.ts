/**
 * The engine process's channel to its host. In the app it is Electron's `process.parentPort` (a
 * utilityProcess); under plain Node, forked with an IPC channel, it is `process.send` — which lets
 * the integration tests run the very same entry in a real child process without Electron.
 */
import type { HostPort } from './engine-service.js';

/** The part of Electron's ParentPort used here (typed locally so this file needs no Electron types). */
interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
}

export function hostPort(proc: NodeJS.Process = process): HostPort | null {
  const parentPort = (proc as NodeJS.Process & { parentPort?: ElectronParentPort }).parentPort;
  if (parentPort) {
    return {
      postMessage: (m) => parentPort.postMessage(m),
      onMessage: (fn) => void parentPort.on('message', (e) => fn(e.data)),
    };
  }
  const send = proc.send?.bind(proc);
  if (send) {
    return {
      postMessage: (m) => void send(m),
      onMessage: (fn) => void proc.on('message', fn),
    };
  }
  return null;
}
