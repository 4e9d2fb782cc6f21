/**
 * The one way tests wait for something: re-check a condition until it holds, or fail after a
 * deadline naming what was awaited. A wait never stands in for a duration: it ends as soon as the
 * condition holds (on a wake-up from an event when one is given, else on a short re-check).
 */

export interface WaitOptions {
  /** Named in the timeout error: "timed out waiting for <what>". */
  what: string;
  /** Default 20 s. */
  timeoutMs?: number;
  /** Re-check when this fires; returns an unsubscribe. Without it the check repeats every `pollMs`. */
  wake?: (recheck: () => void) => () => void;
  /** Re-check at least this often (default 10 ms; with `wake`, a fallback for conditions no event announces). */
  pollMs?: number;
  /** Appended to the timeout error (e.g. the last log lines). */
  detail?: () => string;
}

/** Resolves with the first truthy value of `check`. */
export async function waitUntil<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  o: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) {
      const detail = o.detail?.();
      throw new Error(`timed out waiting for ${o.what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, o.pollMs ?? 10);
      const off = o.wake?.(done);
      function done(): void {
        clearTimeout(timer);
        off?.();
        resolve();
      }
    });
  }
}

/**
 * Resolves with the first value `register` delivers, or fails after `timeoutMs` — or at once when
 * `signal` aborts (what it waited for can no longer come: its timer must not keep the test
 * process alive for the rest of the timeout).
 */
export function nextValue<T>(
  register: (deliver: (v: T) => void) => void,
  o: { what: string; timeoutMs?: number; signal?: AbortSignal },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      reject(new Error(`stopped waiting for ${o.what}: ${String(o.signal?.reason ?? 'aborted')}`));
    };
    const timer = setTimeout(() => {
      o.signal?.removeEventListener('abort', stop);
      reject(new Error(`timed out waiting for ${o.what}`));
    }, o.timeoutMs ?? 20_000);
    if (o.signal?.aborted) return stop();
    o.signal?.addEventListener('abort', stop, { once: true });
    register((v) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', stop);
      resolve(v);
    });
  });
}
