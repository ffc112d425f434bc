import type { ValidationDetail } from '../domain/event';
import { retryAfterHeader, RETRY_AFTER_SECONDS } from '../domain/retry-after';

/** An error with an HTTP status and a message meant for the API user: what is wrong and how to fix it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly extra: { message?: string; details?: ValidationDetail[]; retry_after?: number } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(error);
  }
}

export const INVALID_PAYLOAD = 'Invalid payload format';
export const VALIDATION_FAILED = 'Validation failed';

export const invalidPayload = (message: string) => new ApiError(400, INVALID_PAYLOAD, { message });
export const tooLarge = (error: string) => new ApiError(413, error);
export const notFound = (error: string) => new ApiError(404, error);

/** A transient storage fault: the same request is safe to retry. */
export const unavailable = (error: string, retryAfterSeconds: number = RETRY_AFTER_SECONDS.unavailable) =>
  new ApiError(503, error, {}, retryAfterHeader(retryAfterSeconds));

/** A permanent failure on Tally's side: retrying the same request would fail the same way. */
export const internalError = () => new ApiError(500, 'Internal server error');
