/**
 * The bridge worker's second connection (bridge-worker.ts): it LISTENs on the farm's channel and
 * sends this engine's NOTIFYs, so engines sharing one database hear each other's changes within
 * milliseconds. It is not the store's connection: a notice arriving between two statements of a
 * transaction must never wait for the transaction, and a NOTIFY sent on the store's connection in
 * the middle of one would be delivered at that transaction's commit, or lost with its rollback.
 *
 * What it hears goes to the engine thread asynchronously (`post`, a MessagePort the engine listens
 * to on its event loop) — never through the synchronous call path. A lost connection is opened
 * again (backing off to RECONNECT_CAP_MS); once listening again it posts `missed`, because what was
 * notified meanwhile is gone (NOTIFY is not durable) and the engine must re-read. A heartbeat finds
 * a connection that died without a word (a half-open socket).
 *
 * No `pg` here: the worker passes a client factory (only bridge-worker.ts imports the driver).
 */
import type { NoticeMessage } from './bridge-protocol.js';

/** What this link needs of a `pg.Client`. */
export interface NoticeClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', fn: (n: { channel: string; payload?: string | undefined }) => void): unknown;
  on(event: 'error' | 'end', fn: (err?: unknown) => void): unknown;
  end(): Promise<void>;
}

export interface NoticeLinkOptions {
  open: () => NoticeClient;
  post: (m: NoticeMessage) => void;
  /** A LISTEN session that does not answer its heartbeat within this is given up (default 5 s). */
  heartbeatMs?: number;
}

const RECONNECT_FIRST_MS = 100;
const RECONNECT_CAP_MS = 5_000;
/** Notices waiting for a connection beyond this are dropped (the other engines' re-read catches up). */
const PENDING_CAP = 200;

export class NoticeLink {
  private client: NoticeClient | null = null;
  private connecting: Promise<NoticeClient | null> | null = null;
  private channel: string | null = null;
  private readonly pending: { channel: string; payload: string }[] = [];
  private flushing: Promise<void> | null = null;
  private retryMs = RECONNECT_FIRST_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private beat: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly o: NoticeLinkOptions) {}

  /** Listens on `channel` from now on (and after every reconnect); true once the first LISTEN answered. */
  async listen(channel: string): Promise<boolean> {
    this.channel = channel;
    const c = this.client;
    if (c) {
      try {
        await c.query(`LISTEN ${quoteIdent(channel)}`);
        this.o.post({ kind: 'missed', why: 'listening' });
        this.armBeat();
        return true;
      } catch {
        this.lost(c);
        return false;
      }
    }
    return (await this.connect()) !== null;
  }

  /** Queues a NOTIFY; sent in order on this link's connection as soon as it is up. */
  notify(channel: string, payload: string): void {
    if (this.closed) return;
    if (this.pending.length >= PENDING_CAP) this.pending.shift();
    this.pending.push({ channel, payload });
    void this.flush();
  }

  /** Sends what is queued (a one-shot command's notices must leave before its process does), then closes. */
  async close(): Promise<void> {
    if (this.pending.length) await this.flush().catch(() => undefined);
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.beat) clearInterval(this.beat);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private flush(): Promise<void> {
    this.flushing ??= (async () => {
      try {
        while (this.pending.length && !this.closed) {
          const c = await this.connect();
          if (!c) return; // A reconnect is scheduled; it flushes again.
          const next = this.pending[0] as { channel: string; payload: string };
          try {
            await c.query('SELECT pg_notify($1, $2)', [next.channel, next.payload]);
            this.pending.shift();
          } catch {
            this.lost(c);
            return;
          }
        }
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private connect(): Promise<NoticeClient | null> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<NoticeClient | null> {
    if (this.closed) return null;
    const c = this.o.open();
    c.on('error', () => this.lost(c));
    c.on('end', () => this.lost(c));
    c.on('notification', (n) => {
      if (n.channel === this.channel && typeof n.payload === 'string')
        this.o.post({ kind: 'notice', payload: n.payload });
    });
    try {
      await c.connect();
      if (this.channel !== null) await c.query(`LISTEN ${quoteIdent(this.channel)}`);
    } catch {
      c.end().catch(() => undefined);
      this.scheduleReconnect();
      return null;
    }
    if (this.closed) {
      c.end().catch(() => undefined);
      return null;
    }
    this.client = c;
    this.retryMs = RECONNECT_FIRST_MS;
    // Every LISTEN that starts (the first, or after a loss) may have missed notices: the engine re-reads.
    if (this.channel !== null) {
      this.o.post({ kind: 'missed', why: 'listening' });
      this.armBeat();
    }
    return c;
  }

  /** The connection is gone: forget it; when there is something to hear or send, open another. */
  private lost(c: NoticeClient): void {
    if (this.client !== c) return;
    this.client = null;
    c.end().catch(() => undefined);
    if (this.channel !== null) this.o.post({ kind: 'missed', why: 'lost' });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer || (this.channel === null && this.pending.length === 0)) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(RECONNECT_CAP_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect().then((c) => {
        if (c && this.pending.length) void this.flush();
      });
    }, wait);
  }

  /** A round trip every heartbeat: a socket that died silently is found, and the link reconnects. */
  private armBeat(): void {
    if (this.beat) return;
    const ms = this.o.heartbeatMs ?? 5_000;
    this.beat = setInterval(() => {
      const c = this.client;
      if (!c || this.flushing) return;
      let answered = false;
      const overdue = setTimeout(() => {
        if (!answered) this.lost(c);
      }, ms);
      c.query('SELECT 1').then(
        () => {
          answered = true;
          clearTimeout(overdue);
        },
        () => {
          clearTimeout(overdue);
          this.lost(c);
        },
      );
    }, ms);
    this.beat.unref();
  }
}

/** A channel is an identifier (LISTEN takes no parameter): quoted as one. */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
