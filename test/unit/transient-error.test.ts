import { describe, expect, it } from 'vitest';
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import { isTransient, TransientError } from '../../lambdas/domain/transient-error';
import { RawStreamError } from '../../lambdas/ports';

const aws = (name: string, fault: 'client' | 'server', status: number, extra: object = {}) =>
  Object.assign(new Error(name), { name, $fault: fault, $metadata: { httpStatusCode: status }, ...extra });
const sock = (code: string) => Object.assign(new Error(code), { code });

describe('isTransient: only failures a retry may cure get the retry-me 503', () => {
  it('throttling, server faults and network failures are transient', () => {
    expect(isTransient(aws('ProvisionedThroughputExceededException', 'client', 400, { $retryable: { throttling: true } }))).toBe(true);
    expect(isTransient(aws('ThrottlingException', 'client', 400))).toBe(true);
    expect(isTransient(aws('InternalServerError', 'server', 500))).toBe(true);
    expect(isTransient(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransient(new TransientError('did not converge'))).toBe(true);
    expect(isTransient(new RawStreamError('call failed', { cause: aws('ServiceUnavailableException', 'server', 503) }))).toBe(true);
  });

  it('validation errors, missing resources and unknown errors are permanent', () => {
    expect(isTransient(aws('ValidationException', 'client', 400))).toBe(false);
    expect(isTransient(aws('ResourceNotFoundException', 'client', 400))).toBe(false);
    expect(isTransient(new RawStreamError('call failed', { cause: aws('InvalidArgumentException', 'client', 400) }))).toBe(false);
    expect(isTransient(new TypeError('x is undefined'))).toBe(false);
    expect(isTransient(undefined)).toBe(false);
  });

  it("a call cut off at its deadline is transient: the SDK's abort, as the client reports it", () => {
    const aborted = Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    const deadline = Object.assign(new Error('No answer within the deadline'), { name: 'TimeoutError', cause: aborted, $metadata: { attempts: 2 } });
    expect(isTransient(deadline)).toBe(true);
  });
});

describe("isTransient and the AWS SDK's retries: the client is told to retry whatever the call itself retried", () => {
  const names = [
    // Throttling, the SDK's transient names, service faults, client errors, clock skew.
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'LimitExceededException',
    'TransactionInProgressException',
    'SlowDown',
    'TimeoutError',
    'RequestTimeout',
    'RequestTimeoutException',
    'InternalServerError',
    'ServiceUnavailableException',
    'TransactionConflictException',
    'ValidationException',
    'ConditionalCheckFailedException',
    'ResourceNotFoundException',
    'AccessDeniedException',
    'RequestExpired',
    'SignatureDoesNotMatch',
    'AbortError',
  ];
  const cases: unknown[] = [
    ...names.flatMap((n) => [aws(n, 'client', 400), aws(n, 'server', 500), Object.assign(new Error(n), { name: n })]),
    ...[429, 500, 501, 502, 503, 504, 505, 400, 403, 413].map((status) => aws('Whatever', status >= 500 ? 'server' : 'client', status)),
    ...['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'EPROTO'].map(sock),
    aws('ReplicatedWriteConflictException', 'client', 400, { $retryable: {} }),
    aws('Whatever', 'client', 400, { $retryable: { throttling: true } }),
    Object.assign(aws('InvalidSignatureException', 'client', 400), { message: 'Signature expired: 20260101T000000Z is now earlier than ...' }),
    aws('InvalidSignatureException', 'client', 400),
    aws('RequestTimeTooSkewed', 'client', 403, { $metadata: { httpStatusCode: 403, clockSkewCorrected: true } }),
    new Error('wrapped', { cause: sock('ENOTFOUND') }),
    new Error('wrapped', { cause: aws('ValidationException', 'client', 400) }),
    new TypeError('x is undefined'),
  ];

  it('every failure @smithy/core/retry retries (isThrottlingError || isTransientError) is transient', () => {
    const retried = cases.filter((err) => isThrottlingError(err as never) || isTransientError(err as never));
    expect(retried.length).toBeGreaterThan(40);
    for (const err of retried) expect(isTransient(err), `${(err as Error).name} ${(err as any).code ?? (err as any).$metadata?.httpStatusCode}`).toBe(true);
  });

  it('a DNS failure (ENOTFOUND, which Lambda meets now and then) is answered 503', () => {
    expect(isTransient(sock('ENOTFOUND'))).toBe(true);
  });

  it('transient though the SDK does not resend them: a 501, a transaction conflict, an aborted connection', () => {
    for (const err of [aws('NotImplemented', 'server', 501), aws('TransactionConflictException', 'client', 400), sock('ECONNABORTED')]) {
      expect(isThrottlingError(err as never) || isTransientError(err as never), (err as Error).name).toBe(false);
      expect(isTransient(err), (err as Error).name).toBe(true);
    }
  });

  it('permanent where the SDK gives up at once too: validation, a failed condition, access denied, a bad signature', () => {
    for (const name of ['ValidationException', 'ConditionalCheckFailedException', 'AccessDeniedException', 'InvalidSignatureException']) {
      expect(isTransient(aws(name, 'client', 400)), name).toBe(false);
    }
  });
});
