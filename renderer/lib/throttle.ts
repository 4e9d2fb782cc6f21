/**
 * Runs `fn` at most once per `ms`, trailing: a burst of requests becomes one call now and one at the
 * end of the window, so the last request is never lost.
 */
export function throttle(fn: () => void, ms: number): { (): void; cancel(): void } {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    timer = null;
    last = Date.now();
    fn();
  };
  const t = () => {
    if (timer !== null) return;
    const wait = last + ms - Date.now();
    if (wait <= 0) run();
    else timer = setTimeout(run, wait);
  };
  t.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return t;
}
