/**
 * How `run` and `serve` are stopped: the first Ctrl+C or SIGTERM stops gracefully (running prompts
 * stay on the workstations, downloads in flight may finish for a bounded time), a second one
 * hurries (those downloads are left for the next start to collect). Until stopped, the process
 * stays up: the engine's own timers never keep a process alive on their own (without this, `run`
 * left by itself — exit 13 — as soon as nothing was running).
 */
/** Resolves on Ctrl+C or SIGTERM, or when `stop` is called; a second signal calls `hurry`. `dispose` when done. */
export function untilStopped(hurry: () => void): { stopped: Promise<void>; stop: () => void; dispose: () => void } {
  let signals = 0;
  let resolveStopped = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const onSignal = (): void => {
    if (++signals === 1) resolveStopped();
    else hurry();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    stop: () => {
      signals++;
      resolveStopped();
    },
    dispose: () => {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
