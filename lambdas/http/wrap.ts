/**
 * The one place cross-cutting HTTP concerns are composed (middy): error mapping to the route's
 * response shape, CORS headers, and one structured access-log line per request.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ApiError, unavailable } from './api-error';
import { adminCorsHeaders, corsHeaders } from '../contract/cors';
import { header, json, type HttpEvent, type HttpResult } from './event';
import { errorFields, log } from '../logging/log';
import { errorBody, type Surface } from '../domain/surface';
import { OutcomeUnknownError } from '../domain/transient-error';

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

export function errorResult(surface: Surface, err: ApiError): HttpResult {
  return json(err.status, errorBody(surface, err.error, err.extra), err.headers);
}

export function wrap(handler: (event: HttpEvent) => Promise<HttpResult>, options: WrapOptions): HttpHandler {
  const started = new WeakMap<object, number>();
  return middy<HttpEvent, HttpResult, Error, Context>()
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
  log(response.statusCode >= 500 ? 'warn' : 'info', 'request', {
    route: options.route,
    status: response.statusCode,
    request_id: event.requestContext?.requestId,
    duration_ms: startedAt === undefined ? undefined : Math.round(performance.now() - startedAt),
  });
}
