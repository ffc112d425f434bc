/**
 * Names the API Gateway side (lib/) and the authorizer Lambda must agree on: plain data, so the CDK
 * app can import it without importing a handler.
 */
/** The header CloudFront adds to every origin request; its value is the origin secret. */
export const ORIGIN_VERIFY_HEADER = 'X-Tally-Origin-Verify';

/**
 * Authorizer context keys the gateway response templates substitute ($context.authorizer.<key>).
 * Each suffix is the JSON members a surface adds after `"error":"..."`, with a leading comma, or ''.
 */
export const GATEWAY_CONTEXT = {
  /** Members of every error body of the surface besides "error" (`,"success":false` on /api/*). */
  errorSuffix: 'gw_error_suffix',
  /** The 403 message, JSON-escaped so it can sit between quotes in the template. */
  error: 'gw_error',
} as const;

/**
 * The 503 error of a transient failure that no more specific message describes: API Gateway's answer
 * when the authorizer fails (lib/api/gateway-responses.ts), the local server's when the key lookup
 * fails, and a handler's for a transient failure it did not catch itself (http/wrap.ts).
 */
export const SERVICE_UNAVAILABLE_ERROR = 'Service temporarily unavailable; retry the request';

/**
 * The 404 of a path or method no route has: API Gateway's MISSING_AUTHENTICATION_TOKEN response (sent
 * "when the client attempts to invoke an unsupported API method or resource", before any authorizer,
 * so in the /v1 shape on every path; lib/api/gateway-responses.ts), and the local server's.
 */
export const NO_ROUTE_ERROR = 'No such route: check the method and the path (docs/api.md lists the routes)';
