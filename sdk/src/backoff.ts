/** Retry timing: exponential backoff with jitter, capped, never sooner than the server's Retry-After. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 60_000;

/**
 * The wait before retry number `attempt` (1 for the first retry): a ceiling of base * 2^(attempt-1),
 * capped, of which a random upper half is used ("equal jitter"), so many clients that failed together
 * do not retry together, yet none retries almost at once.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Retry-After as milliseconds; undefined when absent or not a number of seconds (Tally always sends
 * seconds, so the HTTP-date form is not read: the backoff applies instead).
 */
export function retryAfterMs(header: string | null): number | undefined {
  const seconds = header ? Number(header) : NaN;
  return seconds >= 0 ? seconds * 1000 : undefined;
}

export function retryDelay(attempt: number, retryAfter: number | undefined, random?: () => number): number {
  return Math.max(retryAfter ?? 0, backoffDelay(attempt, random));
}
