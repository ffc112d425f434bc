/**
 * isTransient: whether a failure may go away if the same request is sent again later, so the client
 * is answered with the retry-me 503 rather than a 500. Whether an AWS call is resent inside the
 * request is the AWS SDK's own rule (its standard retry mode), not Tally's.
 *
 * Transient: every failure the SDK retries (throttling, timeouts, 5xx, socket and DNS failures,
 * errors the service marks retryable), so a failure the call itself retried is never answered 500;
 * and a few the SDK does not resend but a later request may get past: any server fault (a 501),
 * DynamoDB's transaction conflict, an aborted connection, a call cut off at its deadline (a
 * TimeoutError, lambdas/store/aws-sdk-config.ts), and Tally's own TransientError. A permanent failure
 * (DynamoDB's ValidationException for an over-long key, a missing table, a bad request we built) would
 * fail on every retry, and a 503 would make SDKs resend it until their queues overflow. Unknown
 * failures count as permanent (500): a client is never told to retry what may never succeed.
 *
 * It reads error shapes only (the SDK's `name`, `code`, `$fault`, `$retryable`, `$metadata`), so it
 * imports nothing from the SDK; test/unit/transient-error.test.ts checks it against the SDK's own classifier.
 */

/**
 * Error names of a busy or timed-out service: the SDK's throttling and transient names (it retries
 * them), service faults reported without a status, and DynamoDB's transaction conflict.
 */
const TRANSIENT_NAMES = new Set([
  // Throttling (the SDK's THROTTLING_ERROR_CODES).
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
  // Timeouts: the SDK's (connect, socket idle), a call's deadline, the services' own.
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // Service faults and contention.
  'InternalServerError',
  'InternalFailure',
  'InternalServerException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TransactionConflictException',
]);

/**
 * Socket and DNS failures (the request may not even have reached the service; ENOTFOUND is a DNS
 * lookup that failed, which happens on Lambda now and then), and a connection the local end aborted.
 */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  /** Set by Tally's own errors (contention that did not settle, reads left unprocessed). */
  transient?: unknown;
  /** The AWS SDK marks throttling, and errors the service models as retryable. */
  $retryable?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown; clockSkewCorrected?: unknown };
  cause?: unknown;
}

const shape = (err: unknown): ErrorShape | undefined => (typeof err === 'object' && err !== null ? (err as ErrorShape) : undefined);

/** Whether the client is answered 503 (retry) rather than 500. */
export function isTransient(err: unknown, depth = 0): boolean {
  const e = shape(err);
  if (!e || depth > 10) return false;
  if (typeof e.transient === 'boolean') return e.transient;
  if (e.$retryable !== undefined || e.$fault === 'server' || e.$metadata?.clockSkewCorrected === true) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  // A request signed long before it was sent (the SDK re-signs and retries it).
  if (e.name === 'InvalidSignatureException' && typeof e.message === 'string' && e.message.includes('Signature expired')) return true;
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
