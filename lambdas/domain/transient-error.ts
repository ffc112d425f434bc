/**
 * Two rules about failures, each in one place:
 *
 * - isRetryable: whether lambdas/aws-client sends an AWS call again. Exactly the AWS SDK's standard
 *   retry mode as the installed @smithy/core/retry (service-error-classification) has it: throttling
 *   (isThrottling), the transient names (TimeoutError, RequestTimeout, RequestTimeoutException), HTTP
 *   500/502/503/504, the Node.js socket and DNS failures (ECONNRESET, ECONNREFUSED, EPIPE, ETIMEDOUT,
 *   EHOSTUNREACH, ENETUNREACH, ENOTFOUND, EAI_AGAIN), errors the service marks `$retryable`, and an
 *   expired signature; never an AbortError. Nothing more: a call the SDK would not have resent is not
 *   resent (test/unit/transient-error.test.ts compares this with the SDK's own classifier).
 * - isTransient: whether a failure may go away if the same request is retried, so the client is answered
 *   with the retry-me 503 rather than a 500. Every retryable failure is transient (a failure worth
 *   retrying here is worth retrying for the client), and so are a few the SDK does not resend: any
 *   server fault (a 501), DynamoDB's transaction conflict, an aborted connection, and Tally's own
 *   TransientError. A permanent failure (DynamoDB's ValidationException for an over-long key, a missing
 *   table, a bad request we built) would fail on every retry, and a 503 would make SDKs resend it until
 *   their queues overflow. Unknown failures count as permanent (500): a client is never told to retry
 *   what may never succeed.
 *
 * Both read error shapes only, so this imports nothing from the AWS SDK.
 */

/**
 * Throttling: the service is busy because of our rate (the SDK's THROTTLING_ERROR_CODES). A retry
 * after one of these backs off harder (retry-backoff.ts) and costs less of the retry quota (retry-quota.ts).
 */
const THROTTLING_NAMES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

/** The SDK's TRANSIENT_ERROR_CODES: the names of a call that timed out (TimeoutError is the client's own per-attempt timeout). */
const RETRYABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
/** The SDK's TRANSIENT_ERROR_STATUS_CODES. */
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);
/**
 * Socket and DNS failures (the SDK's NODEJS_TIMEOUT_ERROR_CODES and NODEJS_NETWORK_ERROR_CODES): the
 * request may not even have reached the service. ENOTFOUND is a DNS lookup that failed, which happens
 * on Lambda now and then.
 */
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Transient (503) though not resent by the client: service faults by name (when no status came with them) and DynamoDB's transaction conflict. */
const TRANSIENT_NAMES = new Set([
  'TransactionConflictException',
  'InternalServerError',
  'InternalFailure',
  'InternalServerException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);
/** Transient (503) though not resent by the client: a connection the local end aborted. */
const TRANSIENT_CODES = new Set(['ECONNABORTED']);

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  /** Set by Tally's own errors (contention that did not settle, reads left unprocessed). */
  transient?: unknown;
  /** The AWS SDK (and lambdas/aws-client) mark throttling, and errors the service models as retryable. */
  $retryable?: { throttling?: unknown };
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
}

const shape = (err: unknown): ErrorShape | undefined => (typeof err === 'object' && err !== null ? (err as ErrorShape) : undefined);

/** Whether a failure is throttling (HTTP 429, a throttling name, or marked so): retried, with a longer backoff. */
export function isThrottling(err: unknown): boolean {
  const e = shape(err);
  if (!e) return false;
  return e.$metadata?.httpStatusCode === 429 || (typeof e.name === 'string' && THROTTLING_NAMES.has(e.name)) || e.$retryable?.throttling === true;
}

/** Whether an AWS call that failed so is sent again (within its attempts and the retry quota): the SDK's rule. */
export function isRetryable(err: unknown): boolean {
  return isThrottling(err) || isRetryableTransient(err, 0);
}

function isRetryableTransient(err: unknown, depth: number): boolean {
  const e = shape(err);
  if (!e || e.name === 'AbortError') return false;
  if (e.$retryable !== undefined) return true;
  if (e.name === 'InvalidSignatureException' && typeof e.message === 'string' && e.message.includes('Signature expired')) return true;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && RETRYABLE_CODES.has(e.code)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && RETRYABLE_STATUSES.has(status)) return true;
  return e.cause !== undefined && depth <= 10 && isRetryableTransient(e.cause, depth + 1);
}

/** Whether the client is answered 503 (retry) rather than 500: every retryable failure, and the few above. */
export function isTransient(err: unknown, depth = 0): boolean {
  const e = shape(err);
  if (!e || depth > 5) return false;
  if (typeof e.transient === 'boolean') return e.transient;
  if (isRetryable(e)) return true;
  if (e.$fault === 'server') return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  return isTransient(e.cause, depth + 1);
}

/** A failure of Tally's own that a retry of the same request may not hit again. */
export class TransientError extends Error {
  readonly transient = true;
  override name = 'TransientError';
}

/**
 * A write that may or may not have been stored: its answer was lost and the read that would tell
 * failed too. Transient (503: the client retries); the caller must not undo what goes with the write
 * (name claims, a key's usage plan), since the write may be there.
 */
export class OutcomeUnknownError extends TransientError {
  override name = 'OutcomeUnknownError';
}
