// Follows one prompt over a WebSocket of its own (protocol §3): a StationSocket with a single
// subscription and a give-up budget, for a caller that follows one prompt and nothing else (the
// contract suite, tools). The engine shares one socket per workstation instead
// (station-socket.ts, opened by the instance registry), so its attempts pay no socket set-up.
//
// - Every connection uses a FRESH clientId (`sf-<attempt>-<random>`): the reconnect trap.
// - `ready()` resolves once the first socket is open, so the caller can post afterwards without
//   missing events that arrive before the HTTP response.
// - Breaking out of `for await` (or close()) closes the socket.
import { randomBytes } from 'node:crypto';
import { StationSocket, type SocketOptions, type Subscription } from './station-socket.js';
import type { FollowEvent } from './ws-events.js';

export { wsUrl } from './station-socket.js';

/** The socket's options (station-socket.ts), for one prompt; the give-up budget defaults to 120 s here. */
export interface FollowerOptions extends Omit<SocketOptions, 'newClientId'> {
  promptId: string;
  /** Goes into every clientId, so server logs and /queue extra_data point back to the attempt. */
  attemptId: string;
  /** Default `clientIdForAttempt`. Must return a new id on every call. */
  newClientId?: (attemptId: string) => string;
}

/** `sf-<attempt>-<random>`: unique per connection, readable in server logs. */
export function clientIdForAttempt(attemptId: string): string {
  return `sf-${attemptId}-${randomBytes(6).toString('hex')}`;
}

export class PromptFollower implements AsyncIterable<FollowEvent> {
  private readonly socket: StationSocket;
  private readonly sub: Subscription;

  constructor(opts: FollowerOptions) {
    const newId = opts.newClientId ?? clientIdForAttempt;
    const { promptId: _p, attemptId, newClientId: _n, ...rest } = opts;
    this.socket = new StationSocket({
      ...rest,
      newClientId: () => newId(attemptId),
      giveUpAfterMs: opts.giveUpAfterMs ?? 120_000,
    });
    this.sub = this.socket.subscribe(opts.promptId);
  }

  /** Resolves when the first socket is open; rejects if it never opens before giving up or close(). */
  ready(): Promise<void> {
    return this.socket.ready();
  }

  /** The clientId of the open socket — post the prompt with this one. Null while not connected. */
  get clientId(): string | null {
    return this.socket.clientId;
  }

  [Symbol.asyncIterator](): AsyncIterator<FollowEvent> {
    const it = this.sub[Symbol.asyncIterator]();
    return {
      next: () => it.next(),
      // `break` out of for-await: the consumer is gone, so the socket goes too.
      return: () => {
        this.close();
        return it.return ? it.return() : Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** Ends the stream (no `lost` event) and closes the socket. Idempotent. */
  close(): void {
    this.socket.close();
  }
}

/** Starts following `promptId`; await `ready()` before posting. */
export function followPrompt(opts: FollowerOptions): PromptFollower {
  return new PromptFollower(opts);
}
