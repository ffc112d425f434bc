/**
 * The key restrictions the authorizer applies (spec "Authentication"): origin and bundle ID.
 * The same function runs in the AWS Lambda authorizer and in the local server.
 */
import type { ApiKeyRecord } from './api-key';
import { normaliseOrigin } from './origin';

/**
 * Why a key was refused, for logs and `npm start`'s terminal (the response says it in `error`). A revoked
 * key's record is deleted, so it is refused as an unknown key: the two cannot be told apart.
 */
export type RefusalReason = 'no key sent' | 'unknown or revoked key' | 'origin not allowed' | 'bundle ID missing' | 'bundle ID not allowed';

export type AccessDecision = { allow: true } | { allow: false; status: 401 | 403; error: string; reason: RefusalReason };

export const INVALID_KEY_ERROR = 'Invalid or missing API key';
export const ORIGIN_NOT_ALLOWED_ERROR = 'Request origin not allowed for this API key';
export const BUNDLE_ID_REQUIRED_ERROR =
  'This API key is restricted to listed app bundle IDs: send one of them in the X-Tally-Bundle-ID header (X-MGM-Bundle-Id is accepted too)';
export const BUNDLE_ID_NOT_ALLOWED_ERROR = 'App bundle ID not allowed for this API key';

/**
 * Origins compare as scheme://host[:port], case-insensitively. A listed "*.example.com" matches
 * any subdomain of example.com over https. Requests without an Origin header come from servers and
 * are allowed (a browser always sends Origin on cross-origin POSTs).
 */
export function checkKeyRestrictions(
  key: Pick<ApiKeyRecord, 'allowed_origins' | 'allowed_bundle_ids'>,
  origin: string | undefined,
  bundleId: string | undefined,
): AccessDecision {
  if (origin !== undefined && key.allowed_origins.length > 0 && !originAllowed(key.allowed_origins, origin)) {
    return { allow: false, status: 403, error: ORIGIN_NOT_ALLOWED_ERROR, reason: 'origin not allowed' };
  }
  if (key.allowed_bundle_ids.length > 0) {
    if (!bundleId) return { allow: false, status: 403, error: BUNDLE_ID_REQUIRED_ERROR, reason: 'bundle ID missing' };
    if (!key.allowed_bundle_ids.includes(bundleId)) {
      return { allow: false, status: 403, error: BUNDLE_ID_NOT_ALLOWED_ERROR, reason: 'bundle ID not allowed' };
    }
  }
  return { allow: true };
}

export { normaliseOrigin };

function originAllowed(allowed: string[], origin: string): boolean {
  const o = normaliseOrigin(origin);
  if (!o) return false;
  return allowed.some((pattern) => {
    if (pattern.startsWith('https://*.')) {
      const suffix = pattern.slice('https://*'.length).toLowerCase();
      return o.startsWith('https://') && o.endsWith(suffix) && o.length > 'https://'.length + suffix.length;
    }
    return normaliseOrigin(pattern) === o;
  });
}
