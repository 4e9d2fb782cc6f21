/**
 * A POST /prompt that reaches the server after the workstation's lease moved on (issue 27): its
 * engine was frozen (SIGSTOP, a VM freeze, a long GC) between the fenced write before the POST and
 * the POST itself, or the POST was slow on its way. Two engines then look at one prompt id, and
 * exactly one of them must see the prompt and act on it, so the job never renders twice:
 *
 * - The sender, once its POST returned, writes a fenced no-op. Still its lease: nothing to do.
 *   Lost: if the attempt is still open, the engine that holds the lease now has not given it up
 *   and finds the prompt by id (it looks again after `latePostGraceMs`, and once more after it
 *   requeued), so it is left there; if the attempt is over (requeued by the adopter, or the job
 *   moved on), the sender takes its prompt off the server itself. Either way it records nothing.
 * - The adopter, finding the prompt absent, waits `latePostGraceMs` and looks again before
 *   requeueing (a late POST found then is followed like any recovered prompt); and after its
 *   requeue committed it looks once more and takes off a prompt of that attempt that turned up.
 *
 * Why that is enough: the sender reads the attempt's state after its POST was queued. If it read
 * "open", the adopter's requeue committed later, so the adopter's look after that commit sees the
 * prompt; if it read "over", the sender withdraws it. Left over: a prompt that both queues and
 * finishes between the adopter's last look and its requeue (shorter than two HTTP round trips).
 */
import { attemptOpen } from '../../store/attempt-store.js';
import { isLeaseLost } from '../attempt/lease-fence.js';
import type { AttemptScope } from './attempt-scope.js';
import { takeOffServer } from './interrupt-prompt.js';

/**
 * How long an adopter waits for a late POST before requeueing a prompt absent from the server:
 * half a lease, at most 5 s. The engine that lost the lease stopped renewing at least `lease_s`
 * before, and the adopter took over up to a third of a lease after the expiry; a freeze that cost
 * the lease but ends within half a lease more (most do: a GC pause, a VM's stun) lands its POST
 * inside the grace, and the prompt is followed instead of withdrawn and rendered again elsewhere.
 * A longer freeze is the sender's to clean up (above), so correctness never rests on this wait; it
 * is bounded because the workstation takes no new prompt while it runs (it adds to adoption time).
 */
export function latePostGraceMs(leaseMs: number): number {
  return Math.min(5_000, Math.max(500, Math.round(leaseMs / 2)));
}

/**
 * After this attempt's POST was answered (or found queued): a fenced no-op write. Throws LeaseLost
 * when the workstation's lease moved on — after taking the prompt off the server when its attempt
 * is already over (see above).
 */
export async function checkLeaseAfterPost(a: AttemptScope): Promise<void> {
  if (!a.deps.lease) return;
  try {
    await a.deps.batch.add(() => undefined);
  } catch (err) {
    if (!isLeaseLost(err)) throw err;
    const what = `attempt ${a.attemptId} of job ${a.job.id} on ${a.name}: posted after the lease moved on`;
    if (attemptOpen(a.deps.db, a.attemptId)) {
      a.deps.log(`${what}; the attempt is still open, so the engine holding the lease follows the prompt`);
    } else {
      a.deps.log(`${what}; the attempt is over, so the prompt is taken off the server (not rendered twice)`);
      await takeOffServer(a);
    }
    throw err;
  }
}

/**
 * After this engine concluded a recovered attempt whose prompt was absent as a requeue: a POST of
 * it that landed since is taken off — once the attempt is over in the store. A requeue the fence
 * refused (this engine lost the workstation meanwhile) leaves the attempt open: its prompt is then
 * the next holder's to find and follow, not this engine's to take off.
 */
export async function withdrawLatePost(a: AttemptScope): Promise<void> {
  if (attemptOpen(a.deps.db, a.attemptId)) return;
  await takeOffServer(a);
}
