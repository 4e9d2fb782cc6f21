/** Short scheduler timings for tests on loopback simulators (the defaults are for real networks). */
import type { SchedulerConfig } from '../../electron/engine/settings/farm-config.js';

export const FAST: Partial<SchedulerConfig> = {
  probeIntervalMs: 200,
  probeTimeoutMs: 1_000,
  historyPollMs: 200,
  stallTimeoutS: 30,
  graceMs: 3_000,
  interruptWaitMs: 3_000,
  wsGiveUpMs: 2_000,
  // A request to a partitioned server hangs until this; the 10 s default would make every
  // partition test wait 10 s for what graceMs already decides.
  requestTimeoutMs: 2_000,
  retry: { maxAttempts: 4, baseMs: 20, capMs: 100 },
  // The steps before a POST (catch-up, uploads, the socket) are bounded together; on loopback they
  // take milliseconds, so a stuck one fails (logged with its step) well inside a test's deadline
  // instead of at the 2-minute default — the kill test waits 120 s for its last jobs.
  preparationMs: 15_000,
  quarantineMs: 60_000,
  // An illegal transition is a bug: the runner throws it out, so the test that hit it fails.
  failOnIllegalTransition: true,
};
