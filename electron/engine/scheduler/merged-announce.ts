/**
 * The runners' and the dispatch passes' announcements, merged per tick: a job that is claimed,
 * posted and collected within a few milliseconds is loaded and published once, in its latest
 * state. Each announcement is made after its write is stored, so the merged one is too. Closed
 * before the database is: what was stored is published then, nothing after.
 */
import type { Announce } from '../announcer.js';

export class MergedAnnounce {
  private readonly ids = new Set<string>();
  private queued = false;
  private closed = false;

  constructor(
    private readonly announce: Announce,
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
  ) {}

  add(ids: readonly string[]): void {
    if (this.closed) return;
    for (const id of ids) this.ids.add(id);
    if (this.queued) return;
    this.queued = true;
    this.defer(() => this.flush());
  }

  flush(): void {
    this.queued = false;
    if (this.ids.size === 0 || this.closed) return;
    const batch = [...this.ids];
    this.ids.clear();
    this.announce(batch);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}
