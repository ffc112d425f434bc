/**
 * What API Gateway does in front of the handlers on AWS, done locally with the same functions and
 * response shapes: route matching, CORS preflight, the key authorizer (authorizeKey), per-key rate
 * limits (the usage plans' token bucket), the admin bearer check, the body limits, and the gateway's
 * own error responses. Requests that pass become API Gateway proxy events for the handlers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../deps';
import type { RefusalReason } from '../domain/access';
import { LIMITS } from '../domain/limits';
import { isTransient } from '../domain/transient-error';
import { TokenBuckets } from '../domain/rate-limit';
import { retryAfterHeader, RETRY_AFTER_SECONDS } from '../domain/retry-after';
import { errorBody, surfaceOf, throttledBody } from '../domain/surface';
import { metadataHeader, presentedApiKey } from '../contract/client-headers';
import { adminCorsHeaders, adminPreflightHeaders, corsHeaders, preflightHeaders } from '../contract/cors';
import { NO_ROUTE_ERROR, SERVICE_UNAVAILABLE_ERROR } from '../contract/gateway';
import { ApiError } from '../http/api-error';
import { header, json, type HttpEvent } from '../http/event';
import { errorFields, log } from '../logging/log';
import type { HttpHandler } from '../http/wrap';
import type { createHandlers } from '../handlers/registry';
import { authenticateAdminRoute } from '../handlers/admin';
import { openApiDocument } from '../openapi';
import { ROUTES } from '../routes';
import { authorizeKey, authorizerContext } from '../services/authorize';
import type { OidcConfig } from '../adapters/oidc-verifier';
import { dashboardFiles } from './dashboard-files';
import { serveExample } from './example-page';
import { serveSdk } from './sdk-files';
import { clientIp, lambdaContext, matchRoute, toGatewayEvent, writeResult } from './gateway-event';
import { answerUnread, readBody, type RequestTimeouts } from './request-body';
import { LARGE_BATCH_BYTES, LARGE_BATCH_WAIT_MS, LargeBatchLane, payloadBytes } from './large-batch-lane';

/** Handlers get the same time budget locally as their Lambda timeout on AWS. */
export const HANDLER_TIMEOUT_MS = 10_000;

export interface GatewayOptions {
  timeouts: RequestTimeouts;
  /** A handler's time budget (its context's remaining time); HANDLER_TIMEOUT_MS unless a test raises it. */
  handlerTimeoutMs?: number;
  /** How long a large event batch may wait for the one before it (large-batch-lane.ts); LARGE_BATCH_WAIT_MS unless set. */
  largeBatchWaitMs?: number;
  trustProxy: boolean;
  /** Where the dashboard is built on first use (see dashboard-files.ts). */
  dataDir: string;
  /** People's sign-in: the dashboard's config.json names the issuer, and its CSP lets the page reach it. */
  oidc?: OidcConfig;
}

/** The request listener of the local server. */
export function localGateway(deps: Deps, handlers: ReturnType<typeof createHandlers>, options: GatewayOptions) {
  const { timeouts } = options;
  const buckets = new TokenBuckets();
  const serveDashboard = dashboardFiles(options.dataDir, options.oidc);
  const largeBatches = new LargeBatchLane(options.largeBatchWaitMs);

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (await serveExample(req, res, url.pathname)) return;
    if (await serveSdk(req, res, url.pathname)) return;
    if (await serveDashboard(req, res, url.pathname)) return;
    // The API's description, generated from the route manifest and the handlers' schemas (local only).
    if (req.method === 'GET' && url.pathname === '/openapi.json') return writeResult(res, json(200, openApiDocument()));
    const started = performance.now();
    const surface = surfaceOf(url.pathname);
    const origin = req.headers.origin;
    const cors = surface === 'admin' ? adminCorsHeaders(origin, deps.dashboardOrigin) : corsHeaders(origin);
    const matched = matchRoute(ROUTES, req.method ?? 'GET', url.pathname);
    // A request answered here, before any handler (which logs its own), gets its access line here: the
    // route's name, never the path as sent.
    const logAnswer = (status: number, refused?: RefusalReason) =>
      log('info', 'request', {
        route: typeof matched === 'object' ? matched.route.name : undefined,
        method: req.method,
        status,
        duration_ms: Math.round(performance.now() - started),
        refused,
      });
    // Every early answer leaves the body unread: answerUnread lets the client finish sending it.
    const fail = (
      status: number,
      error: string,
      extra: Record<string, unknown> = {},
      headers: Record<string, string> = {},
      close = false,
      refused?: RefusalReason,
    ) => {
      logAnswer(status, refused);
      return answerUnread(req, res, json(status, errorBody(surface, error, extra), { ...cors, ...headers }), timeouts, { close });
    };

    if (req.method === 'OPTIONS' && matched !== undefined && surface !== 'admin') {
      req.resume();
      const requested = header({ headers: req.headers as Record<string, string> }, 'access-control-request-headers');
      return writeResult(res, { statusCode: 204, headers: preflightHeaders(origin, requested), body: '' });
    }
    // Admin preflights are answered only when a dashboard origin is configured, and allow only it.
    if (req.method === 'OPTIONS' && matched !== undefined && surface === 'admin' && deps.dashboardOrigin) {
      req.resume();
      return writeResult(res, { statusCode: 204, headers: adminPreflightHeaders(origin, deps.dashboardOrigin), body: '' });
    }
    // As API Gateway answers a path or a method no route has (MISSING_AUTHENTICATION_TOKEN, before any
    // authorizer): 404 in the /v1 shape on every path (lib/api/gateway-responses.ts).
    if (matched === undefined || matched === 'method') {
      logAnswer(404);
      return answerUnread(req, res, json(404, errorBody('v1', NO_ROUTE_ERROR), cors), timeouts, { close: false });
    }

    // Authentication comes from the headers alone: an unauthenticated request never has its body read.
    let authorizer: Record<string, string> | null = null;
    if (matched.route.auth === 'api-key') {
      const lookup = (name: string) => header({ headers: req.headers as Record<string, string> }, name);
      let decision;
      try {
        decision = await authorizeKey(deps.keys, {
          key: presentedApiKey(lookup),
          origin,
          bundleId: metadataHeader(lookup, 'bundleId'),
        });
      } catch (err) {
        // As API Gateway answers when the authorizer fails (AUTHORIZER_FAILURE, lib/api/gateway-responses.ts).
        log('error', 'key lookup failed', errorFields(err));
        return fail(503, SERVICE_UNAVAILABLE_ERROR, {}, retryAfterHeader(RETRY_AFTER_SECONDS.gatewayThrottled));
      }
      if (!decision.allow) return fail(decision.status, decision.error, {}, {}, false, decision.reason);
      const rate = buckets.take(decision.key.id, decision.key.rate_limit_per_minute, deps.clock());
      if (!rate.allowed) {
        const seconds = rate.retryAfterSeconds;
        logAnswer(429);
        return answerUnread(req, res, json(429, throttledBody(seconds), { ...corsHeaders(origin), ...retryAfterHeader(seconds) }), timeouts, { close: false });
      }
      authorizer = authorizerContext(decision.key);
    } else {
      try {
        await authenticateAdminRoute(matched.route.name, deps)({ headers: req.headers } as unknown as HttpEvent);
      } catch (err) {
        if (err instanceof ApiError) return fail(err.status, err.error);
        // The sign-in issuer's keys could not be read: as the function answers on AWS (wrap), 503 and retry.
        if (isTransient(err)) {
          log('error', 'admin sign-in check failed', errorFields(err));
          return fail(503, SERVICE_UNAVAILABLE_ERROR, {}, retryAfterHeader(RETRY_AFTER_SECONDS.unavailable));
        }
        throw err;
      }
    }

    const body = await readBody(req, LIMITS.maxBodyBytes, timeouts.bodyMs);
    if (body === 'aborted') return void req.socket.destroy();
    if (body === 'too_slow') {
      return fail(408, `The request body did not arrive within ${timeouts.bodyMs / 1000} s; send it at once`, {}, {}, true);
    }
    if (body === 'too_large') {
      return fail(413, `Request body is larger than ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`);
    }

    const event = toGatewayEvent(req, url, body, matched, clientIp(req, options.trustProxy), authorizer);
    const handler = handlers[matched.route.name as keyof typeof handlers] as HttpHandler;
    // The invocation, and its time budget, start when the handler runs: a large batch first waits for the one before it.
    const invoke = () => handler(event, lambdaContext(matched.route, event.requestContext.requestId, options.handlerTimeoutMs ?? HANDLER_TIMEOUT_MS));
    const large = 'ledger' in matched.route.uses && payloadBytes(body, req.headers['content-encoding']) > LARGE_BATCH_BYTES;
    const result = large ? await largeBatches.run(invoke) : await invoke();
    if (result === 'timed_out') {
      const waited = Math.round((options.largeBatchWaitMs ?? LARGE_BATCH_WAIT_MS) / 1000);
      return fail(
        503,
        `Other large batches were being stored and this one did not get its turn within ${waited} s; nothing of it was stored: retry the same batch (it is safe)`,
        {},
        retryAfterHeader(RETRY_AFTER_SECONDS.inFlight),
      );
    }
    writeResult(res, result);
  };

  return serve;
}
