/**
 * How long an AWS call waits before it is sent again: the AWS SDK's standard retry backoff (as in
 * @smithy/core's DefaultRetryBackoffStrategy, the version in package-lock.json), exponential with
 * full jitter. Retry n (0 for the first retry) waits a uniformly random time in
 * [0, min(base × 2^n, 20 s)). The base is the service's (DynamoDB 25 ms, others 50 ms), or 1 s when
 * the failure was throttling. Which failures are retried at all is isRetryable (transient-error.ts).
 */

/** No wait is longer than this, however many retries came before. */
export const MAX_BACKOFF_MS = 20_000;
/** The base after a throttling error: backing off harder is what throttling asks for. */
export const THROTTLING_BACKOFF_BASE_MS = 1_000;

/** The wait before retry number `retry` (0-based), given the base in ms and a random number in [0, 1). */
export function backoffDelayMs(retry: number, baseMs: number, random: number = Math.random()): number {
  return Math.floor(random * Math.min(baseMs * 2 ** retry, MAX_BACKOFF_MS));
}
