/** Fakes for the engine host's process edges: a child process (hand-moved timers: helpers/fake-time.ts). */
import { EventEmitter } from 'node:events';
import type { EngineChild } from '../../electron/main/engine-host.js';
import type { HostMessage } from '../../electron/main/engine-protocol.js';

/** A child process: records what the host posts; the test plays the engine's side. */
export class FakeChild extends EventEmitter implements EngineChild {
  readonly posted: HostMessage[] = [];
  killed = false;

  postMessage(message: HostMessage): void {
    // Like structured clone: functions cannot cross.
    if (
      JSON.stringify(message, (_k, v: unknown) => {
        if (typeof v === 'function') throw new Error('could not be cloned');
        return v;
      }) === undefined
    )
      return;
    this.posted.push(message);
  }

  kill(): boolean {
    this.killed = true;
    return true;
  }

  /** The engine says something. */
  say(message: unknown): void {
    this.emit('message', message);
  }

  ready(): void {
    this.say({ ready: true });
  }

  crash(code = 139): void {
    this.emit('exit', code);
  }

  /** The calls posted so far. */
  calls(): { id: number; method: string; input: unknown }[] {
    return this.posted.filter((m): m is { id: number; method: string; input: unknown } => 'id' in m);
  }
}

/** A spawn function that hands out fresh fake children and remembers them. */
export function fakeSpawner(): { spawn: () => FakeChild; children: FakeChild[]; last: () => FakeChild } {
  const children: FakeChild[] = [];
  return {
    children,
    spawn: () => {
      const c = new FakeChild();
      children.push(c);
      return c;
    },
    last: () => {
      const c = children.at(-1);
      if (!c) throw new Error('no child spawned yet');
      return c;
    },
  };
}

/** Lets promise callbacks run. */
export const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
