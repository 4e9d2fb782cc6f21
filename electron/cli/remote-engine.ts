/**
 * The engine that runs the data folder's farm, as a one-shot command reaches it from another
 * terminal: the contract over its loopback control listener (electron/engine/lock/control-listener.ts),
 * with the token from its lock record. Answers are the contract's envelope, checked on arrival.
 */
import { request } from 'undici';
import type { ApiMethod, ApiOutputs } from '../../shared/api.js';
import { resultOfAnswer, ShotfarmError } from '../../shared/errors.js';
import { holderWords, type LockRecord } from '../engine/lock/lock-record.js';
import type { EngineApi } from './context.js';

export type ReachableHolder = LockRecord & { control: NonNullable<LockRecord['control']> };

export class RemoteEngine implements EngineApi {
  constructor(readonly holder: ReachableHolder) {}

  async call<M extends ApiMethod>(method: M, input: unknown): Promise<ApiOutputs[M]> {
    const { url, token } = this.holder.control;
    let status: number;
    let text: string;
    try {
      const res = await request(`${url}/call/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input ?? {}),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new ShotfarmError(
        'conflict',
        `The farm on ${this.holder.dataDir} is run by ${holderWords(this.holder)}, which did not answer at ${url} ` +
          `(${(err as Error).message}). Check that it still runs (stop it if it hangs), then try again.`,
        { details: { engineLock: this.holder } },
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    // The holder's engine answered through the contract: its result is that method's output.
    return resultOfAnswer(
      parsed,
      () =>
        new ShotfarmError(
          'internal',
          `The running farm answered ${method} with something unexpected (HTTP ${status}).`,
        ),
    ) as ApiOutputs[M];
  }
}
