/**
 * Errors shaped like the AWS SDK's, so callers written for it (isRetryable, isTransient, the stores' checks of
 * `name`) read them unchanged: `name` (ValidationException, ConditionalCheckFailedException…),
 * `message`, `$fault`, `$metadata`, `$retryable` for throttling, and the body's other members (DynamoDB's
 * `Item` with ReturnValuesOnConditionCheckFailure: ALL_OLD, `CancellationReasons`), as the wire has them.
 */
import { isThrottling } from '../domain/transient-error';

export interface ResponseMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts: number;
  totalRetryDelay: number;
}

export interface ServiceError extends Error {
  $fault: 'client' | 'server';
  $metadata: ResponseMetadata;
  $retryable?: { throttling: boolean };
  [member: string]: unknown;
}

/** The error type's short name: the x-amzn-errortype header or the body's code/__type, without namespace or URL. */
export function errorName(header: string | undefined, body: Record<string, unknown>): string | undefined {
  const raw = header ?? (typeof body.code === 'string' ? body.code : undefined) ?? (typeof body.__type === 'string' ? body.__type : undefined);
  if (!raw) return undefined;
  const withoutUrl = raw.split(':')[0] ?? raw;
  return withoutUrl.slice(withoutUrl.lastIndexOf('#') + 1) || undefined;
}

/** The error a non-2xx answer stands for. */
export function serviceError(status: number, headers: Record<string, string | string[] | undefined>, text: string): ServiceError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): the status says what it is.
  }
  const header = headers['x-amzn-errortype'];
  const name = errorName(typeof header === 'string' ? header : undefined, body) ?? (status >= 500 ? 'UnknownError' : `Http${status}Error`);
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : name;
  const err = new Error(message) as ServiceError;
  for (const [k, v] of Object.entries(body)) if (k !== '__type' && k !== 'message' && k !== 'Message' && k !== 'code') err[k] = v;
  err.name = name;
  err.$fault = status >= 500 ? 'server' : 'client';
  const requestId = headers['x-amzn-requestid'];
  err.$metadata = { httpStatusCode: status, requestId: typeof requestId === 'string' ? requestId : undefined, attempts: 1, totalRetryDelay: 0 };
  if (isThrottling(err)) err.$retryable = { throttling: true };
  return err;
}
