/**
 * The desktop app on a studio farm: the session the main process keeps (which farm, its token from
 * the token store), joining one (the address checked, the farm asked with the token before anything
 * is kept), the menu's farm actions sent to it (RemoteCallTarget: Node's fetch, no page involved),
 * and the jobs imported in this app, for desktop notifications.
 */
import type { ApiMethod } from '../../shared/api.js';
import { resultOfAnswer, ShotfarmError } from '../../shared/errors.js';
import type { StudioFarm } from '../preload/channels.js';
import { studioOrigin, writeFarmChoice, type FarmChoice } from './farm-choice.js';
import type { StudioPort } from './ipc.js';
import type { CallTarget } from './ipc-policy.js';
import type { TokenStore } from './token-store.js';

/** Calls the contract on the studio farm as any script would: POST /api/call/<method> with the bearer token. */
export class RemoteCallTarget implements CallTarget {
  constructor(private readonly farm: StudioFarm) {}

  async call(method: ApiMethod, input: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.farm.origin}/api/call/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.farm.token}` },
        body: JSON.stringify(input),
      });
    } catch {
      throw new ShotfarmError('unavailable', `The studio farm at ${this.farm.origin} cannot be reached.`, {
        retryable: true,
      });
    }
    return resultOfAnswer(
      await res.json().catch(() => null),
      () =>
        new ShotfarmError(
          'unavailable',
          `The studio farm at ${this.farm.origin} answered ${res.status}, not as a Shotfarm server does.`,
        ),
    );
  }
}

export interface StudioSessionDeps {
  choice: FarmChoice | null;
  choiceFile: string;
  tokens: TokenStore;
  /** After a join is kept: the app restarts on the new farm. */
  restart(): void;
}

const KEEP_IMPORTED = 10_000;

export class StudioSession implements StudioPort {
  /** Jobs imported in this app this session (newest last), for studio mode's notifications. */
  private readonly imported = new Set<string>();
  private joinRequested = false;

  constructor(private readonly d: StudioSessionDeps) {}

  farm(): StudioFarm | null {
    if (this.d.choice?.mode !== 'studio') return null;
    const token = this.d.tokens.read();
    return token === null ? null : { origin: this.d.choice.origin, token };
  }

  async join(url: string, token: string): Promise<void> {
    const o = studioOrigin(url);
    if (!o.ok) throw new ShotfarmError('bad_input', o.message);
    const t = token.trim();
    if (t === '')
      throw new ShotfarmError(
        'bad_input',
        "Paste your personal token (from the farm's operator, or the URL `shotfarm serve` printed).",
      );
    // Asked before anything is kept: a wrong address or token changes nothing.
    try {
      await new RemoteCallTarget({ origin: o.origin, token: t }).call('farm.status', {});
    } catch (err) {
      throw new ShotfarmError('bad_input', `Could not join ${o.origin}: ${(err as Error).message}`);
    }
    this.d.tokens.write(t);
    writeFarmChoice(this.d.choiceFile, { mode: 'studio', origin: o.origin });
    this.d.restart();
  }

  /** The first start's "Studio Farm…": the page, once it asks, shows the join form. */
  requestJoin(): void {
    this.joinRequested = true;
  }

  takeJoinRequest(): boolean {
    const asked = this.joinRequested;
    this.joinRequested = false;
    return asked;
  }

  importedHere(jobIds: readonly string[]): void {
    for (const id of jobIds) this.imported.add(id);
    while (this.imported.size > KEEP_IMPORTED) this.imported.delete(this.imported.values().next().value as string);
  }

  wasImportedHere(jobId: string): boolean {
    return this.imported.has(jobId);
  }
}
