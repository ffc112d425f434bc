/**
 * Browser SDKs post from the customer's site, so ingestion and experiment routes answer CORS.
 * The Origin is reflected: whether that origin may use a key is the authorizer's decision (403).
 */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Content-Encoding',
  'X-Tally-SDK',
  'X-Tally-SDK-Version',
  'X-Tally-Platform',
  'X-Tally-Platform-Version',
  'X-Tally-Bundle-ID',
].join(', ');

export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': 'Retry-After',
    Vary: 'Origin',
  };
}

export function preflightHeaders(origin: string | undefined): Record<string, string> {
  return {
    ...corsHeaders(origin),
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
    'Access-Control-Max-Age': '600',
  };
}
