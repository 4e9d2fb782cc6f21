/**
 * What the Electron preload exposes on `window.shotfarm` (contextBridge): the contract's `call` and
 * event `subscribe`, nothing else. The preload checks method names and topics against the contract.
 */
export interface ShotfarmBridge {
  call(method: string, input: unknown): Promise<unknown>;
  subscribe(topic: string, fn: (payload: unknown) => void): () => void;
}

declare global {
  interface Window {
    shotfarm?: ShotfarmBridge;
  }
}
