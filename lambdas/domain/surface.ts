/**
 * The three response shapes of the API. Every error body, whether a handler, the local server or
 * an API Gateway gateway response produces it, is built here.
 *  - v1:    { "error": ..., ...extra }              (/v1/*)
 *  - api:   { "success": false, "error": ... }      (/api/events)
 *  - admin: { "error": ..., ...extra }              (/admin/v1/*)
 * "Surface" is the one name for this axis: the ingest routes' surface is IngestSurface (event.ts),
 * and a stored event's `source` field records it.
 */
export type Surface = 'v1' | 'api' | 'admin';

export function surfaceOf(path: string): Surface {
  if (path.startsWith('/api/')) return 'api';
  if (path.startsWith('/admin/')) return 'admin';
  return 'v1';
}

export function errorBody(surface: Surface, error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (surface === 'api') {
    // This path's documented shape is { success, error } only: fold any detail into the message.
    let detail = typeof extra.message === 'string' ? `: ${extra.message}` : '';
    if (Array.isArray(extra.details)) {
      detail = ': ' + (extra.details as Array<{ index: number; error: string }>).map((d) => `event ${d.index}: ${d.error}`).join('; ');
    }
    return { success: false, error: `${error}${detail}` };
  }
  return { error, ...extra };
}

/**
 * The 429 body, the same on every path: the union of the /v1 body ({ error, retry_after }) and the
 * /api body ({ success: false, error }), so a client of either reads the members it expects. On AWS
 * it is a gateway response, and gateway response templates cannot tell paths apart with documented
 * features (lib/api/gateway-responses.ts); the local server sends the same body.
 */
export function throttledBody(retryAfterSeconds: number): Record<string, unknown> {
  return { ...errorBody('v1', RATE_LIMIT_ERROR, { retry_after: retryAfterSeconds }), ...errorBody('api', RATE_LIMIT_ERROR) };
}

export const RATE_LIMIT_ERROR = 'Rate limit exceeded';
