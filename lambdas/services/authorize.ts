/**
 * The project-key check of every public route: key lookup by hash, then its origin and bundle-ID
 * restrictions. The AWS Lambda authorizer and the local server both call this function.
 */
import { checkKeyRestrictions, INVALID_KEY_ERROR, type RefusalReason } from '../domain/access';
import { hashApiKey, type ApiKeyRecord } from '../domain/api-key';
import type { ApiKeyStore } from '../ports';

export interface KeyRequest {
  /** The key as presented (contract/client-headers.ts presentedApiKey). */
  key: string | undefined;
  origin: string | undefined;
  bundleId: string | undefined;
}

export type KeyDecision = { allow: true; key: ApiKeyRecord } | { allow: false; status: 401 | 403; error: string; reason: RefusalReason };

export async function authorizeKey(keys: ApiKeyStore, request: KeyRequest): Promise<KeyDecision> {
  if (!request.key) return { allow: false, status: 401, error: INVALID_KEY_ERROR, reason: 'no key sent' };
  const key = await keys.findByHash(hashApiKey(request.key));
  if (!key) return { allow: false, status: 401, error: INVALID_KEY_ERROR, reason: 'unknown or revoked key' };
  const decision = checkKeyRestrictions(key, request.origin, request.bundleId);
  return decision.allow ? { allow: true, key } : decision;
}

/** What the authorizer hands to handlers (requestContext.authorizer); string values, as on AWS. */
export function authorizerContext(key: ApiKeyRecord): Record<string, string> {
  return { project_id: key.project_id, key_id: key.id };
}
