/**
 * What the authorizer tells a handler about the caller. On AWS the Lambda authorizer returns it as
 * its context (string values only); the local server puts the same object on requestContext.authorizer.
 */
import { ApiError } from './api-error';
import { INVALID_KEY_ERROR } from '../domain/access';
import type { HttpEvent } from './event';

export interface Principal {
  project_id: string;
  key_id: string;
}

export function principalOf(event: HttpEvent): Principal {
  const ctx = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  if (typeof ctx.project_id !== 'string' || typeof ctx.key_id !== 'string') {
    // Only reachable if a route is wired without the authorizer: fail closed.
    throw new ApiError(401, INVALID_KEY_ERROR);
  }
  return { project_id: ctx.project_id, key_id: ctx.key_id };
}
