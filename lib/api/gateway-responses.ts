/**
 * The errors API Gateway itself sends (before or instead of a handler), with the spec's bodies.
 *
 * What a gateway response template can do is documented: it "isn't processed by the Velocity Template
 * Language (VTL) engine" and supports "only simple variable substitution" (API Gateway developer guide,
 * x-amazon-apigateway-gateway-responses.responseTemplates), and gateway responses are set "at the API
 * level" (Gateway responses for REST APIs), one per response type for every path. So one template
 * cannot give /v1 and /api/events different shapes by any documented means: substituting
 * $context.resourcePath could only put the path *into* the body. Whether $context.authorizer.* is
 * set in the INVALID_API_KEY and THROTTLED responses, and how an unset one renders, is not documented,
 * so neither template relies on it:
 *  - 401 (missing or unknown key) is not a gateway response: the authorizer admits such a request with
 *    the stack's unauthenticated API key (lib/api/api.ts) and the route's handler answers 401 in the
 *    path's shape (documented: the authorizer's usageIdentifierKey selects the API key, and its context
 *    reaches the integration). INVALID_API_KEY remains for a key revoked while the authorizer still
 *    caches its record (its API key is gone): the static /v1 body.
 *  - 429 is static and the same on every path: the union of the two spec bodies
 *    {"error":"Rate limit exceeded","retry_after":1,"success":false} (throttledBody), so /v1 clients
 *    find error and retry_after and /api/events clients find success and error. The local server
 *    sends the same body.
 *  - 403 (origin or bundle ID refused) is an explicit Deny carrying the message and the path's
 *    members in its context ($context.authorizer.*, always set: the authorizer returned them).
 */
import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { INVALID_KEY_ERROR } from '../../lambdas/domain/access';
import { LIMITS } from '../../lambdas/domain/limits';
import { GATEWAY_CONTEXT, NO_ROUTE_ERROR, SERVICE_UNAVAILABLE_ERROR } from '../../lambdas/contract/gateway';
import { RETRY_AFTER_SECONDS } from '../../lambdas/domain/retry-after';
import { throttledBody } from '../../lambdas/domain/surface';

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
const throttled = JSON.stringify(throttledBody(RETRY_AFTER_SECONDS.gatewayThrottled));
const invalidKey = JSON.stringify({ error: INVALID_KEY_ERROR });
const q = (text: string) => JSON.stringify(text);
const retryAfter = { 'Retry-After': `'${RETRY_AFTER_SECONDS.gatewayThrottled}'` };

export const GATEWAY_ERRORS: GatewayErrorSpec[] = [
  // A key revoked a moment ago (its API key is gone, the authorizer's cache still has the record).
  // Missing and unknown keys get the handler's 401 instead (see above).
  { id: 'InvalidApiKey', type: ResponseType.INVALID_API_KEY, statusCode: '401', template: invalidKey },
  // Not produced by Tally's authorizer (it never throws "Unauthorized"); the same 401 if it ever is.
  { id: 'Unauthorized', type: ResponseType.UNAUTHORIZED, statusCode: '401', template: invalidKey },
  // Origin or bundle-ID restriction: an explicit Deny carrying the message.
  { id: 'AccessDenied', type: ResponseType.ACCESS_DENIED, statusCode: '403', template: `{"error":"${authorizer(GATEWAY_CONTEXT.error)}"${errorSuffix}}` },
  // The key's usage plan (or the stage or account limit) refused the request.
  { id: 'Throttled', type: ResponseType.THROTTLED, statusCode: '429', template: throttled, headers: retryAfter },
  { id: 'QuotaExceeded', type: ResponseType.QUOTA_EXCEEDED, statusCode: '429', template: throttled, headers: retryAfter },
  // Above API Gateway's 10 MB payload limit; handlers answer 413 themselves above LIMITS.maxBodyBytes.
  {
    id: 'RequestTooLarge',
    type: ResponseType.REQUEST_TOO_LARGE,
    statusCode: '413',
    template: `{"error":${q(`Request body is larger than ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`)}}`,
  },
  // API Gateway answers unknown paths and methods with 403 "Missing Authentication Token" by default.
  { id: 'NoRoute', type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '404', template: JSON.stringify({ error: NO_ROUTE_ERROR }) },
  // The authorizer failed (DynamoDB unavailable, say): transient, safe to retry like the handlers' 503.
  {
    id: 'AuthorizerFailure',
    type: ResponseType.AUTHORIZER_FAILURE,
    statusCode: '503',
    template: JSON.stringify({ error: SERVICE_UNAVAILABLE_ERROR }),
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
