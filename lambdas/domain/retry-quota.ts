/**
 * The retry quota of the AWS SDK's standard retry mode: one token bucket per client, so that when a
 * service keeps failing (sustained throttling) calls soon stop being retried and fail at once, instead
 * of each one waiting out its backoffs against the Lambda timeout. A retry takes its cost from the
 * bucket, and is not made when the bucket cannot pay; a call that succeeds gives back what its last
 * retry took, or a token when it needed no retry; the bucket never holds more than it started with.
 *
 * The numbers are the installed @smithy/core's (3.41.0, submodule retry), which the SDK's DynamoDB and
 * Firehose clients use (`StandardRetryStrategy` in util-retry): INITIAL_RETRY_TOKENS = 500 and
 * NO_RETRY_INCREMENT = 1 (util-retry/constants.js), a retry after throttling costs
 * `Retry.throttlingCost()` = 5 and any other retry `Retry.cost()` = 14 (util-retry/retries-2026-config.js).
 * The constants RETRY_COST = 5 and TIMEOUT_RETRY_COST = 10 still in constants.js belong to the
 * deprecated pre-SRA strategy (defaultRetryQuota), which the clients no longer use.
 */

export const INITIAL_RETRY_TOKENS = 500;
/** What a retry after throttling costs (Retry.throttlingCost()). */
export const THROTTLING_RETRY_COST = 5;
/** What any other retry costs: a timeout, a 5xx, a dropped connection (Retry.cost()). */
export const RETRY_COST = 14;
/** What a call that succeeded without a retry gives back. */
export const NO_RETRY_INCREMENT = 1;

export class RetryQuota {
  private tokens = INITIAL_RETRY_TOKENS;

  /** The tokens left. */
  get available(): number {
    return this.tokens;
  }

  /** Pays for one retry after a failure; its cost, or undefined when the bucket cannot pay (then no retry). */
  take(throttling: boolean): number | undefined {
    const cost = throttling ? THROTTLING_RETRY_COST : RETRY_COST;
    if (this.tokens < cost) return undefined;
    this.tokens -= cost;
    return cost;
  }

  /** A call succeeded: `lastRetryCost` is what its last retry took (take's answer), undefined when it needed none. */
  succeeded(lastRetryCost?: number): void {
    this.tokens = Math.min(INITIAL_RETRY_TOKENS, this.tokens + (lastRetryCost ?? NO_RETRY_INCREMENT));
  }
}
