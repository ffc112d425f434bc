/**
 * The fields of a new project key as people fill them in: their limits (the admin API enforces the
 * same, lambdas/handlers/keys.ts) and, for the dashboard to say before sending anything, what is
 * wrong, in plain words. Pure.
 */
import { normaliseOrigin } from './origin';

export const KEY_LIMITS = {
  /** Largest rate limit a key may be given (requests per minute). */
  maxRateLimitPerMinute: 600_000,
  /** Allowed origins, and allowed bundle IDs, per key. */
  maxRestrictions: 100,
  bundleIdLength: 255,
  /** A key's label (optional, what the key is for: "iOS app"), as long as a project's name may be. */
  labelLength: 200,
} as const;

/** An allowed origin as a key may list it: scheme://host[:port], or https://*.<domain> for every subdomain over https. */
export function isAllowedOriginPattern(origin: string): boolean {
  return normaliseOrigin(origin) !== null || /^https:\/\/\*\.[a-z0-9.-]+$/i.test(origin);
}

export type KeyField = 'label' | 'rate_limit_per_minute' | 'allowed_origins' | 'allowed_bundle_ids';

export interface KeyDraft {
  /** As typed; empty or absent: no label. */
  label?: string;
  /** As typed; empty: the plan's limit. */
  rateLimit: string;
  /** One entry a line, blank lines already left out. */
  origins: string[];
  bundleIds: string[];
}

export function keyDraftProblems(draft: KeyDraft): Partial<Record<KeyField, string>> {
  const problems: Partial<Record<KeyField, string>> = {};
  const L = KEY_LIMITS;
  const label = (draft.label ?? '').trim();
  if (label.length > L.labelLength) problems.label = `Shorten the label to ${L.labelLength} characters or fewer (it has ${label.length}).`;
  const limit = draft.rateLimit.trim();
  if (limit !== '') {
    const n = /^\d+$/.test(limit) ? Number(limit) : NaN;
    if (!Number.isSafeInteger(n)) problems.rate_limit_per_minute = 'Write the limit as a whole number of requests per minute, such as 500, or leave it empty.';
    else if (n < 1 || n > L.maxRateLimitPerMinute) {
      problems.rate_limit_per_minute = `Choose a limit from 1 to ${L.maxRateLimitPerMinute.toLocaleString('en')} requests per minute.`;
    }
  }
  const badOrigin = draft.origins.find((o) => !isAllowedOriginPattern(o));
  if (draft.origins.length > L.maxRestrictions) problems.allowed_origins = `List at most ${L.maxRestrictions} origins.`;
  else if (badOrigin !== undefined) {
    problems.allowed_origins = `“${badOrigin}” is not an origin: write the address a page is served from, like https://app.example.com, or https://*.example.com for every subdomain.`;
  }
  const longId = draft.bundleIds.findIndex((b) => b.length > L.bundleIdLength);
  if (draft.bundleIds.length > L.maxRestrictions) problems.allowed_bundle_ids = `List at most ${L.maxRestrictions} bundle IDs.`;
  else if (longId >= 0) problems.allowed_bundle_ids = `Shorten bundle ID ${longId + 1} to ${L.bundleIdLength} characters or fewer.`;
  return problems;
}
