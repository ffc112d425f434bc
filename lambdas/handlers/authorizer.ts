/**
 * The API Gateway REQUEST authorizer of every api-key route (/v1/*, /api/*). It runs the same key
 * check as the local server (authorizeKey) and tells API Gateway three things:
 *  - Allow or Deny, and for an allowed key its usage identifier (the key hash, the value of the key's
 *    API Gateway API key) so the key's usage plan throttles it;
 *  - the handler context (authorizerContext: project_id, key_id; via_cloudfront when the request
 *    carries the CloudFront origin secret);
 *  - the surface-specific parts of the error bodies the gateway itself sends, because gateway
 *    response templates are per REST API and only substitute variables (no VTL, no conditions).
 *
 * How each outcome reaches the client (the templates live in lib/api/gateway-responses.ts):
 *  - valid key                   -> Allow, usageIdentifierKey = key_hash
 *  - missing or unknown key      -> Allow with the usage identifier of the stack's "unauthenticated"
 *                                   API key (deps.unauthenticatedUsageKey; lib/api/api.ts), so the
 *                                   request reaches the route's handler, which answers 401 in the path's
 *                                   shape: the context carries no project_id (principalOf). A gateway
 *                                   response could not: its template is the same for every path.
 *                                   Without that key, INVALID_KEY_USAGE_IDENTIFIER, never an API key
 *                                   value, makes API Gateway answer its INVALID_API_KEY 401.
 *  - origin / bundle-ID refused  -> Deny with the message in the context: ACCESS_DENIED, 403.
 *
 * Caching: API Gateway's authorizer result cache is off (TTL 0) because its cache key would be the
 * identity sources only; caching on Authorization would replay one request's Origin decision for
 * another. Instead this function caches key records (not decisions) in memory for a short TTL and
 * checks Origin and bundle ID on every request.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { ApiKeyRecord } from '../domain/api-key';
import { secretsEqual } from '../domain/api-key';
import { metadataHeader, presentedApiKey } from '../contract/client-headers';
import { header } from '../http/event';
import { errorFields, log } from '../logging/log';
import { errorBody, surfaceOf, type Surface } from '../domain/surface';
import { authorizeKey, authorizerContext } from '../services/authorize';
import type { ApiKeyStore } from '../ports';
import { GATEWAY_CONTEXT, ORIGIN_VERIFY_HEADER } from '../contract/gateway';

/** The usage identifier for a missing or unknown key when no unauthenticated key is configured: never an API key value. */
export const INVALID_KEY_USAGE_IDENTIFIER = 'tally-no-such-api-key';
/** The members errorBody(surface, error, extra) has besides "error", as JSON text after a comma. */
export function bodySuffix(surface: Surface, error: string, extra: Record<string, unknown> = {}): string {
  const { error: rendered, ...rest } = errorBody(surface, error, extra);
  if (rendered !== error) throw new Error(`The ${surface} error body rewrites its message; a static template cannot express it`);
  const members = JSON.stringify(rest).slice(1, -1);
  return members ? `,${members}` : '';
}

/** The context every decision carries, so any gateway error after the authorizer has the path's shape. */
export function gatewayContext(surface: Surface): Record<string, string> {
  return {
    [GATEWAY_CONTEXT.errorSuffix]: bodySuffix(surface, 'error'),
  };
}

/** A JSON string's content without its quotes: safe to place between quotes in a JSON template. */
export const jsonEscape = (text: string) => JSON.stringify(text).slice(1, -1);

export interface AuthorizerDeps {
  keys: ApiKeyStore;
  clock: () => number;
  /** How long a looked-up key record (or its absence) is reused by this instance. 0 disables. */
  keyCacheTtlMs: number;
  /** The CloudFront origin secret, when the stack puts CloudFront in front. */
  originSecret?: () => Promise<string>;
  /** Value of the API key whose usage plan admits unauthenticated requests to their handler's 401. */
  unauthenticatedUsageKey?: string;
}

export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export function createAuthorizerHandler(deps: AuthorizerDeps): AuthorizerHandler {
  const keys = deps.keyCacheTtlMs > 0 ? new CachingKeyStore(deps.keys, deps.keyCacheTtlMs, deps.clock) : deps.keys;
  return async (event) => {
    const started = deps.clock();
    const surface = surfaceOf(event.resource ?? event.path ?? '/');
    const headers = { headers: event.headers ?? {} };
    const lookup = (name: string) => header(headers, name);
    const decision = await authorizeKey(keys, {
      key: presentedApiKey(lookup),
      origin: header(headers, 'origin'),
      bundleId: metadataHeader(lookup, 'bundleId'),
    });
    const gateway = gatewayContext(surface);
    let result: APIGatewayAuthorizerResult;
    if (decision.allow) {
      const context: Record<string, string> = { ...authorizerContext(decision.key), ...gateway };
      if (await viaCloudFront(deps, header(headers, ORIGIN_VERIFY_HEADER))) context.via_cloudfront = '1';
      result = policy(decision.key.id, 'Allow', event.methodArn, context, decision.key.key_hash);
    } else if (decision.status === 401) {
      result = policy('anonymous', 'Allow', event.methodArn, gateway, deps.unauthenticatedUsageKey ?? INVALID_KEY_USAGE_IDENTIFIER);
    } else {
      result = policy('anonymous', 'Deny', event.methodArn, { ...gateway, [GATEWAY_CONTEXT.error]: jsonEscape(decision.error) });
    }
    // Allowed requests are in the API Gateway access log (key, project, authorizer status and latency),
    // so the function repeats them only at debug; refusals stay at info.
    log(decision.allow ? 'debug' : 'info', 'authorizer decision', {
      route: event.resource,
      outcome: decision.allow ? 'allow' : decision.status,
      refused: decision.allow ? undefined : decision.reason,
      key_id: decision.allow ? decision.key.id : undefined,
      via_cloudfront: result.context?.via_cloudfront === '1' || undefined,
      duration_ms: deps.clock() - started,
    });
    return result;
  };
}

async function viaCloudFront(deps: AuthorizerDeps, presented: string | undefined): Promise<boolean> {
  if (!deps.originSecret || !presented) return false;
  try {
    return secretsEqual(presented, await deps.originSecret());
  } catch (err) {
    // Not trusting the CloudFront-Viewer-* headers is the safe failure; the request itself goes on.
    log('error', 'reading the CloudFront origin secret failed', errorFields(err));
    return false;
  }
}

function policy(
  principalId: string,
  effect: 'Allow' | 'Deny',
  methodArn: string,
  context: Record<string, string>,
  usageIdentifierKey?: string,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: methodArn }],
    },
    context,
    ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
  };
}

/**
 * Key records by hash, reused for ttlMs. Revocation still takes effect at once on AWS: revoking a
 * key deletes its API Gateway API key, so the gateway refuses it (401) even while a record is cached.
 * Absent keys are cached too (a key is never looked up before it exists), which keeps floods of
 * made-up keys off DynamoDB; the cache holds at most maxEntries records.
 */
export class CachingKeyStore implements ApiKeyStore {
  private readonly entries = new Map<string, { key: ApiKeyRecord | undefined; expiresMs: number }>();

  constructor(
    private readonly inner: ApiKeyStore,
    private readonly ttlMs: number,
    private readonly clock: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const now = this.clock();
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresMs > now) return hit.key;
    const key = await this.inner.findByHash(keyHash);
    this.entries.delete(keyHash);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, { key, expiresMs: now + this.ttlMs });
    return key;
  }

  create(key: ApiKeyRecord): Promise<void> {
    this.entries.delete(key.key_hash);
    return this.inner.create(key);
  }

  listByProject(projectId: string): Promise<ApiKeyRecord[]> {
    return this.inner.listByProject(projectId);
  }

  relabel(projectId: string, keyId: string, label: string | undefined): Promise<ApiKeyRecord | undefined> {
    return this.inner.relabel(projectId, keyId, label);
  }

  async revoke(projectId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const revoked = await this.inner.revoke(projectId, keyId);
    if (revoked) this.entries.delete(revoked.key_hash);
    return revoked;
  }
}
