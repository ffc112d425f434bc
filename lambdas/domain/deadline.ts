/**
 * A run's deadline: work not started by then is left for the next run, and waits stop at it. A
 * function that is still working when its Lambda timeout strikes loses everything it had not saved, so
 * long-running jobs stop themselves a margin before it.
 */

/** Thrown by work that stopped because the deadline passed; the caller leaves it for the next run. */
export class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
}

/** Epoch ms by which a run must stop: the time left minus a margin for stopping and saving. */
export function deadlineFrom(nowMs: number, remainingMs: number, marginMs: number): number {
  return nowMs + Math.max(0, remainingMs - marginMs);
}
