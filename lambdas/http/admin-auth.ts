import { bearerToken, secretsEqual } from '../domain/api-key';
import { ApiError } from './api-error';
import { header, type HttpEvent } from './event';

export const INVALID_ADMIN_TOKEN = 'Invalid or missing admin token';

/** The admin API's bearer check. getToken is cached by its provider (Secrets Manager on AWS). */
export function requireAdmin(getToken: () => Promise<string>) {
  return async (event: HttpEvent): Promise<void> => {
    const presented = bearerToken(header(event, 'authorization'));
    if (!presented || !secretsEqual(presented, await getToken())) {
      throw new ApiError(401, INVALID_ADMIN_TOKEN);
    }
  };
}
