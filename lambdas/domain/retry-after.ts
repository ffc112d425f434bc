/**
 * The Retry-After policy: how long a client is told to wait before it sends the same request again.
 * Every Retry-After header, and the retry_after member of the /v1 429 body, takes its value from here.
 *  - 429 from API Gateway (AWS): a gateway response header is static, so a fixed value
 *    (RETRY_AFTER_SECONDS.gatewayThrottled; lib/api/gateway-responses.ts).
 *  - 429 from the local server: the token bucket's wait until its next token, whole seconds, at least 1
 *    (throttledRetryAfter; domain/rate-limit.ts).
 *  - 503 for a transient storage fault: RETRY_AFTER_SECONDS.unavailable.
 *  - 503 for events another request is storing right now: RETRY_AFTER_SECONDS.inFlight, long enough
 *    for that request to finish its write.
 */
export const RETRY_AFTER_SECONDS = {
  gatewayThrottled: 1,
  unavailable: 1,
  inFlight: 5,
} as const;

/** Whole seconds until a token bucket refilling at perMs tokens per ms holds one token again (at least 1). */
export function throttledRetryAfter(tokens: number, perMs: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
}

/** The header itself. */
export function retryAfterHeader(seconds: number): { 'Retry-After': string } {
  return { 'Retry-After': String(seconds) };
}
