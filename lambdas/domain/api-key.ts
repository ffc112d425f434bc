/**
 * Project API keys: plans, effective limits, generation and hashing. Only the hash is ever stored.
 * Keys are 256 random bits, so a single SHA-256 (no salt, no stretching) is enough: there is no
 * dictionary to guess from, and the authorizer can look a key up by its hash in one read.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { KEY_PREFIX } from './api-key-shape';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per minute per key (spec: Free 100, Pro 1000, Enterprise custom). */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = { free: 100, pro: 1000 };
/** What an enterprise key gets when it is created without rate_limit_per_minute. */
export const ENTERPRISE_DEFAULT_LIMIT = 10_000;

export { KEY_PREFIX };

export interface ApiKeyRecord {
  id: string;
  project_id: string;
  key_hash: string;
  /** First characters of the key, so people can tell keys apart in a list without the secret. */
  key_prefix: string;
  /** What the key is for, as people named it ("iOS app"); not a secret. Absent: no label. */
  label?: string;
  plan: Plan;
  rate_limit_per_minute: number;
  allowed_origins: string[];
  allowed_bundle_ids: string[];
  created_at: string;
}

export function effectiveRateLimit(plan: Plan, override: number | undefined): number {
  if (override !== undefined) return override;
  return plan === 'enterprise' ? ENTERPRISE_DEFAULT_LIMIT : PLAN_LIMITS[plan];
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/** The bearer token of an Authorization header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}
