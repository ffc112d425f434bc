/**
 * CORS, one place for both environments (lambdas/http/wrap.ts, lambdas/local/api-gateway.ts,
 * lib/api/api.ts).
 *
 * Browser SDKs post from the customer's site, so ingestion and experiment routes answer CORS.
 * The Origin is reflected: whether that origin may use a key is the authorizer's decision (403).
 *
 * A preflight allows the headers the browser asks for (Access-Control-Request-Headers) when that
 * value is a well-formed list of header names: keys and metadata are checked by the authorizer, so
 * naming a header grants nothing, and an SDK adding a header tomorrow keeps working. Otherwise it
 * allows CLIENT_HEADER_NAMES. On AWS the OPTIONS mock (lib/api/api.ts) does the same with
 * PREFLIGHT_HEADER_LIST_PATTERN, so both environments answer alike.
 */
import { CLIENT_HEADER_NAMES } from './client-headers';

/** The fallback Access-Control-Allow-Headers value. */
export const CORS_ALLOW_HEADERS = CLIENT_HEADER_NAMES.join(', ');

/**
 * A comma-separated list of header names (RFC 9110 tokens) with optional blanks around the commas.
 * Written only with escapes that JavaScript and Java regular expressions read alike (\w, \t, \xNN)
 * and without "#", "$" or "'", because the AWS side embeds this very text in a Velocity string, where
 * those characters would start a directive or a reference.
 */
export const PREFLIGHT_HEADER_LIST_PATTERN =
  '[\\t ]*[\\w!\\x23\\x24%&\\x27*+.^\\x60\\x7c~-]+(?:[\\t ]*,[\\t ]*[\\w!\\x23\\x24%&\\x27*+.^\\x60\\x7c~-]+)*[\\t ]*';
const HEADER_LIST = new RegExp(`^(?:${PREFLIGHT_HEADER_LIST_PATTERN})$`);

export const PREFLIGHT_STATIC_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Max-Age': '600',
  // The answer depends on both request headers, so caches must key on them.
  Vary: 'Origin, Access-Control-Request-Headers',
} as const;

export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': 'Retry-After',
    Vary: 'Origin',
  };
}

/** What Access-Control-Allow-Headers answers to a preflight's Access-Control-Request-Headers. */
export function allowedRequestHeaders(requested: string | undefined): string {
  return requested !== undefined && HEADER_LIST.test(requested) ? requested : CORS_ALLOW_HEADERS;
}

export function preflightHeaders(origin: string | undefined, requestedHeaders: string | undefined): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin || '*',
    'Access-Control-Expose-Headers': 'Retry-After',
    ...PREFLIGHT_STATIC_HEADERS,
    'Access-Control-Allow-Headers': allowedRequestHeaders(requestedHeaders),
  };
}

/**
 * Admin routes (/admin/v1/*) answer CORS for one origin only: the dashboard's (DASHBOARD_ORIGIN on
 * AWS, the CloudFront distribution's; TALLY_DASHBOARD_ORIGIN locally, unset by default because npm
 * start serves the dashboard on the API's own origin). Unset: no CORS header at all, as before.
 * Another origin gets no Access-Control-Allow-Origin, so a browser hides the response from it.
 * docs/decisions/admin-cors-dashboard-origin.md says why.
 */
export const ADMIN_PREFLIGHT_STATIC_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '600',
  // The answer depends on Origin.
  Vary: 'Origin',
} as const;

/** A serialized origin as browsers send it: scheme, host, optional port; no path, no trailing slash. */
const ORIGIN = /^https?:\/\/(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Whether `text` is an origin the admin CORS rule can compare with a request's Origin header. */
export function isOrigin(text: string): boolean {
  return ORIGIN.test(text);
}

/** Whether a request from `origin` may read admin responses: exactly the dashboard's origin. */
export function isDashboardOrigin(origin: string | undefined, dashboardOrigin: string | undefined): boolean {
  return dashboardOrigin !== undefined && dashboardOrigin !== '' && origin === dashboardOrigin;
}

/** The CORS headers of an admin response. */
export function adminCorsHeaders(origin: string | undefined, dashboardOrigin: string | undefined): Record<string, string> {
  if (!dashboardOrigin) return {};
  if (!isDashboardOrigin(origin, dashboardOrigin)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': dashboardOrigin, 'Access-Control-Expose-Headers': 'Retry-After', Vary: 'Origin' };
}

/** The answer to a preflight (OPTIONS) on an admin path. */
export function adminPreflightHeaders(origin: string | undefined, dashboardOrigin: string | undefined): Record<string, string> {
  return {
    ...ADMIN_PREFLIGHT_STATIC_HEADERS,
    ...(isDashboardOrigin(origin, dashboardOrigin) ? { 'Access-Control-Allow-Origin': dashboardOrigin! } : {}),
  };
}
