import { describe, expect, it } from 'vitest';
import { isThrottling, isTransient, TransientError } from '../../lambdas/domain/transient-error';
import { RawStreamError } from '../../lambdas/ports';

const aws = (name: string, fault: 'client' | 'server', status: number, extra: object = {}) =>
  Object.assign(new Error(name), { name, $fault: fault, $metadata: { httpStatusCode: status }, ...extra });

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
});

describe('isThrottling: the transient failures that back off from 1 s', () => {
  it('throttling names and HTTP 429 are throttling; other transient failures are not', () => {
    expect(isThrottling(aws('ProvisionedThroughputExceededException', 'client', 400))).toBe(true);
    expect(isThrottling(aws('ThrottlingException', 'client', 400))).toBe(true);
    expect(isThrottling(aws('Whatever', 'client', 429))).toBe(true);
    expect(isThrottling(aws('InternalServerError', 'server', 500))).toBe(false);
    expect(isThrottling(aws('ValidationException', 'client', 400))).toBe(false);
    expect(isThrottling(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(false);
  });
});
