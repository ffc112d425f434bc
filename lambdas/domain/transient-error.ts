/**
 * Whether a failure may go away if the same request is retried. Only these are answered with the
 * retry-me 503: a permanent failure (DynamoDB's ValidationException for an over-long key, a missing
 * table, a bad request we built) would fail on every retry, and a 503 would make SDKs resend it
 * until their queues overflow. Unknown failures count as permanent (500): a client is never told to
 * retry what may never succeed. Reads error shapes only, so it imports nothing from the AWS SDK.
 */

/**
 * Throttling: the service is busy because of our rate (the AWS SDK's THROTTLING_ERROR_CODES, the
 * ones DynamoDB and Firehose can answer). A retry after one of these backs off harder (retry-backoff.ts).
 */
const THROTTLING_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'LimitExceededException',
]);

/** AWS error names that mean "busy" or "briefly broken": throttling, service-side faults, timeouts. */
const TRANSIENT_NAMES = new Set([
  ...THROTTLING_NAMES,
  'TransactionConflictException',
  'InternalServerError',
  'InternalFailure',
  'InternalServerException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
]);

/** Socket-level failures: the request may not even have reached the service. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  /** Set by Tally's own errors (contention that did not settle, reads left unprocessed). */
  transient?: unknown;
  /** The AWS SDK marks throttling and transient errors it retried itself. */
  $retryable?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
}

export function isTransient(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as ErrorShape;
  if (typeof e.transient === 'boolean') return e.transient;
  if (e.$retryable) return true;
  if (e.$fault === 'server') return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  return isTransient(e.cause, depth + 1);
}

/** Whether a failure is throttling (HTTP 429 or a throttling error name): transient, with a longer backoff. */
export function isThrottling(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as ErrorShape;
  return e.$metadata?.httpStatusCode === 429 || (typeof e.name === 'string' && THROTTLING_NAMES.has(e.name));
}

/** A failure of Tally's own that a retry of the same request may not hit again. */
export class TransientError extends Error {
  readonly transient = true;
  override name = 'TransientError';
}
