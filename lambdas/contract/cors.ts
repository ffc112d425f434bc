/**
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
