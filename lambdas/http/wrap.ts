/**
 * The one place cross-cutting HTTP concerns are composed (middy): error mapping to the route's
 * response shape, CORS headers, and one structured access-log line per request.
 *
 * Error mapping, in order: an ApiError is the answer it carries; a failure that may go away if the same
 * request is sent again (isTransient: throttling, a timeout or 5xx from AWS, a lost connection,
 * Tally's own TransientError and OutcomeUnknownError) is 503 with Retry-After, whichever store or
 * client it came from; a handler that ran out of its time budget (HandlerTimeout) is 503 too; anything
 * else is 500. The classification reads error shapes only (names, $metadata, `transient`), not classes
 * of one client.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ApiError, unavailable } from './api-error';
import { adminCorsHeaders, corsHeaders } from '../contract/cors';
import { SERVICE_UNAVAILABLE_ERROR } from '../contract/gateway';
import { header, json, type HttpEvent, type HttpResult } from './event';
import { errorFields, log } from '../logging/log';
import { errorBody, type Surface } from '../domain/surface';
import { isTransient, OutcomeUnknownError } from '../domain/transient-error';
import { RETRY_AFTER_SECONDS } from '../domain/retry-after';

export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

export interface WrapOptions {
  /** Route name, for logs. */
  route: string;
  surface: Surface;
  /** Runs before the handler; throws an ApiError to refuse the request (the admin token check). */
  authenticate?: (event: HttpEvent) => Promise<void>;
  /** Admin routes: the one origin their responses allow (lambdas/contract/cors.ts adminCorsHeaders); unset, none. */
  dashboardOrigin?: string;
}

/**
 * The handler was still working when its time budget ran out (its Lambda timeout on AWS, the same
 * budget on the local server): middy answers a few milliseconds before the runtime would kill the
 * function. What the handler had done by then may or may not have been stored, so the client retries
 * (503); retrying a batch is safe (events are deduplicated).
 */
export class HandlerTimeout extends Error {
  override name = 'HandlerTimeout';
  readonly transient = true;
}

/** What a handler adds to its request's access-log line: counts only, never a client-sent value. */
export interface AccessLogCounts {
  /** Events in the batch a request sent (ingestion). */
  events?: number;
  /** Events of the batch dropped because their ID is suppressed (a count, never the IDs). */
  suppressed?: number;
}

const accessCounts = new WeakMap<object, AccessLogCounts>();

/** Adds counts to the access-log line this request gets when it is answered (whatever the answer). */
export function countForAccessLog(event: HttpEvent, counts: AccessLogCounts): void {
  accessCounts.set(event, { ...accessCounts.get(event), ...counts });
}

export function errorResult(surface: Surface, err: ApiError): HttpResult {
  return json(err.status, errorBody(surface, err.error, err.extra), err.headers);
}

export function wrap(handler: (event: HttpEvent) => Promise<HttpResult>, options: WrapOptions): HttpHandler {
  const started = new WeakMap<object, number>();
  return middy<HttpEvent, HttpResult, Error, Context>({
    // middy's default throws an Error named TimeoutError, which read as unknown would be a 500.
    timeoutEarlyResponse: () => {
      throw new HandlerTimeout('The request did not finish in time and may or may not have taken effect; retry it');
    },
  })
    .before(async (request) => {
      started.set(request, performance.now());
      await options.authenticate?.(request.event);
    })
    .after((request) => {
      finish(request.event, request.response!, options, started.get(request));
    })
    .onError((request) => {
      const err = request.error;
      let response: HttpResult;
      if (err instanceof ApiError) {
        response = errorResult(options.surface, err);
      } else if (err instanceof OutcomeUnknownError) {
        // A write whose answer was lost and could not be read back: 503, so the client retries.
        log('warn', 'outcome unknown', { route: options.route, request_id: request.event.requestContext?.requestId, ...errorFields(err) });
        response = errorResult(options.surface, unavailable(err.message));
      } else if (err instanceof HandlerTimeout) {
        // Its work may still be under way (locally) or frozen with its claims held (AWS): the retry waits
        // as long as one for events another request is storing.
        log('error', 'handler timed out', { route: options.route, request_id: request.event.requestContext?.requestId, ...errorFields(err) });
        response = errorResult(options.surface, unavailable(err.message, RETRY_AFTER_SECONDS.inFlight));
      } else if (isTransient(err)) {
        log('error', 'transient failure', { route: options.route, request_id: request.event.requestContext?.requestId, ...errorFields(err) });
        response = errorResult(options.surface, unavailable(SERVICE_UNAVAILABLE_ERROR));
      } else {
        log('error', 'unhandled error', { route: options.route, request_id: request.event.requestContext?.requestId, ...errorFields(err) });
        response = json(500, errorBody(options.surface, 'Internal server error'));
      }
      request.response = response;
      finish(request.event, response, options, started.get(request));
    })
    .handler(handler) as unknown as HttpHandler;
}

function finish(event: HttpEvent, response: HttpResult, options: WrapOptions, startedAt: number | undefined): void {
  const origin = header(event, 'origin');
  const cors = options.surface === 'admin' ? adminCorsHeaders(origin, options.dashboardOrigin) : corsHeaders(origin);
  response.headers = { ...cors, ...response.headers };
  // The project a project key belongs to, as the authorizer found it (never a path or body value).
  const projectId = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)?.project_id;
  log(response.statusCode >= 500 ? 'warn' : 'info', 'request', {
    route: options.route,
    status: response.statusCode,
    request_id: event.requestContext?.requestId,
    duration_ms: startedAt === undefined ? undefined : Math.round(performance.now() - startedAt),
    project_id: typeof projectId === 'string' ? projectId : undefined,
    ...accessCounts.get(event),
  });
}
