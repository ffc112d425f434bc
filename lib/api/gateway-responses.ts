/**
 * The errors API Gateway itself sends (before or instead of a handler), with the spec's bodies.
 *
 * Gateway responses belong to the REST API, not to a path, and their templates are not VTL: they only
 * substitute variables. So the path-specific part of each body comes from the authorizer, which knows
 * the path: every decision it returns carries, in its context, the JSON members the path's surface adds
 * after "error" (lambdas/handlers/authorizer.ts, gatewayContext). Each template below is the /v1 body
 * with those members substituted in, so:
 *   /v1/*   401 {"error":"Invalid or missing API key"}           429 {"error":"Rate limit exceeded","retry_after":1}
 *   /api/*  401 {"error":"Invalid or missing API key","success":false}   429 {"error":"Rate limit exceeded","success":false}
 * When no authorizer ran (admin routes, or errors raised before authorization such as 413), the
 * substitution is empty and the body is the /v1 and /admin shape { "error": ... }.
 */
import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { INVALID_KEY_ERROR } from '../../lambdas/domain/access';
import { LIMITS } from '../../lambdas/domain/limits';
import { GATEWAY_CONTEXT, RATE_LIMIT_ERROR, RETRY_AFTER_SECONDS } from '../../lambdas/handlers/authorizer';

export interface GatewayErrorSpec {
  /** Construct ID suffix; stable once deployed. */
  id: string;
  type: ResponseType;
  /** Undefined keeps the status API Gateway chose (the DEFAULT_* responses). */
  statusCode?: string;
  /** The application/json body template. */
  template: string;
  headers?: Record<string, string>;
}

const authorizer = (key: string) => `$context.authorizer.${key}`;
const errorSuffix = authorizer(GATEWAY_CONTEXT.errorSuffix);
const throttleSuffix = authorizer(GATEWAY_CONTEXT.throttleSuffix);
const q = (text: string) => JSON.stringify(text);
const retryAfter = { 'Retry-After': `'${RETRY_AFTER_SECONDS}'` };

export const GATEWAY_ERRORS: GatewayErrorSpec[] = [
  // Missing or unknown key: the authorizer allows with a usage identifier that is no API key (see
  // lambdas/handlers/authorizer.ts). Also a key revoked a moment ago (its API key is gone).
  { id: 'InvalidApiKey', type: ResponseType.INVALID_API_KEY, statusCode: '401', template: `{"error":${q(INVALID_KEY_ERROR)}${errorSuffix}}` },
  // Not produced by Tally's authorizer (it never throws "Unauthorized"); the same 401 if it ever is.
  { id: 'Unauthorized', type: ResponseType.UNAUTHORIZED, statusCode: '401', template: `{"error":${q(INVALID_KEY_ERROR)}${errorSuffix}}` },
  // Origin or bundle-ID restriction: an explicit Deny carrying the message.
  { id: 'AccessDenied', type: ResponseType.ACCESS_DENIED, statusCode: '403', template: `{"error":"${authorizer(GATEWAY_CONTEXT.error)}"${errorSuffix}}` },
  // The key's usage plan (or the stage or account limit) refused the request.
  { id: 'Throttled', type: ResponseType.THROTTLED, statusCode: '429', template: `{"error":${q(RATE_LIMIT_ERROR)}${throttleSuffix}}`, headers: retryAfter },
  { id: 'QuotaExceeded', type: ResponseType.QUOTA_EXCEEDED, statusCode: '429', template: `{"error":${q(RATE_LIMIT_ERROR)}${throttleSuffix}}`, headers: retryAfter },
  // Above API Gateway's 10 MB payload limit; handlers answer 413 themselves above LIMITS.maxBodyBytes.
  {
    id: 'RequestTooLarge',
    type: ResponseType.REQUEST_TOO_LARGE,
    statusCode: '413',
    template: `{"error":${q(`Request body is larger than ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`)}}`,
  },
  // API Gateway answers unknown paths and methods with 403 "Missing Authentication Token" by default.
  { id: 'NoRoute', type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '404', template: `{"error":"No such route; see the README for the API"}` },
  // The authorizer failed (DynamoDB unavailable, say): transient, safe to retry like the handlers' 503.
  {
    id: 'AuthorizerFailure',
    type: ResponseType.AUTHORIZER_FAILURE,
    statusCode: '503',
    template: `{"error":"Service temporarily unavailable; retry the request"}`,
    headers: retryAfter,
  },
  { id: 'AuthorizerConfiguration', type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, statusCode: '500', template: `{"error":"Internal server error"}` },
  { id: 'Default4xx', type: ResponseType.DEFAULT_4XX, template: `{"error":$context.error.messageString}` },
  { id: 'Default5xx', type: ResponseType.DEFAULT_5XX, template: `{"error":"Internal server error"}` },
];

/**
 * Headers of every gateway response. Browsers hide a cross-origin response without
 * Access-Control-Allow-Origin; "*" is enough because SDKs send no credentials (cookies).
 */
export const GATEWAY_RESPONSE_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': "'*'",
  'Access-Control-Expose-Headers': "'Retry-After'",
};
