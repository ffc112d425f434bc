/**
 * The Lambda authorizer: its decisions follow authorizeKey (the local server's check), its context is
 * authorizerContext plus the gateway body fragments, and caching never carries one request's Origin
 * decision over to another request with the same key.
 */
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { BUNDLE_ID_REQUIRED_ERROR, INVALID_KEY_ERROR, ORIGIN_NOT_ALLOWED_ERROR } from '../../lambdas/domain/access';
import { hashApiKey, type ApiKeyRecord } from '../../lambdas/domain/api-key';
import { CachingKeyStore, createAuthorizerHandler, INVALID_KEY_USAGE_IDENTIFIER, type AuthorizerDeps } from '../../lambdas/handlers/authorizer';
import { GATEWAY_CONTEXT, ORIGIN_VERIFY_HEADER } from '../../lambdas/contract/gateway';
import { authorizeKey, authorizerContext } from '../../lambdas/services/authorize';
import type { ApiKeyStore } from '../../lambdas/ports';

// Decisions are logged one line each; keep test output readable.
process.env.TALLY_LOG_LEVEL ??= 'silent';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/v1/events';

function record(secret: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: `key-${secret}`,
    project_id: 'proj-1',
    key_hash: hashApiKey(secret),
    key_prefix: secret.slice(0, 12),
    plan: 'free',
    rate_limit_per_minute: 100,
    allowed_origins: [],
    allowed_bundle_ids: [],
    created_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An in-memory ApiKeyStore that counts lookups (the DynamoDB store is tested against dynalite). */
class FakeKeys implements ApiKeyStore {
  lookups = 0;
  constructor(readonly keys: ApiKeyRecord[]) {}
  async create(key: ApiKeyRecord) {
    this.keys.push(key);
  }
  async findByHash(hash: string) {
    this.lookups++;
    return this.keys.find((k) => k.key_hash === hash);
  }
  async listByProject(projectId: string) {
    return this.keys.filter((k) => k.project_id === projectId);
  }
  async revoke(projectId: string, keyId: string) {
    const i = this.keys.findIndex((k) => k.project_id === projectId && k.id === keyId);
    return i < 0 ? undefined : this.keys.splice(i, 1)[0];
  }
  async relabel(projectId: string, keyId: string, label: string | undefined) {
    const key = this.keys.find((k) => k.project_id === projectId && k.id === keyId);
    if (key) key.label = label;
    return key;
  }
}

function event(headers: Record<string, string>, resource = '/v1/events'): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    resource,
    path: resource,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: null,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

const PLAIN = 'tally_plainkey0000000000000000000000000000000';
const WEB = 'tally_webkey00000000000000000000000000000000000';
const MOBILE = 'tally_mobilekey000000000000000000000000000000';

function setup(overrides: Partial<AuthorizerDeps> = {}) {
  const keys = new FakeKeys([
    record(PLAIN),
    record(WEB, { allowed_origins: ['https://app.example.com'] }),
    record(MOBILE, { allowed_bundle_ids: ['com.acme.app'] }),
  ]);
  let now = 1_000_000;
  const clock = () => now;
  const handler = createAuthorizerHandler({ keys, clock, keyCacheTtlMs: 60_000, ...overrides });
  return { keys, handler, advance: (ms: number) => (now += ms) };
}

describe('authorizer decisions', () => {
  it('allows a valid key with its hash as usage identifier and authorizerContext as context', async () => {
    const { handler } = setup();
    const out = await handler(event({ Authorization: `Bearer ${PLAIN}` }));
    const key = record(PLAIN);
    expect(out.usageIdentifierKey).toBe(key.key_hash);
    expect(out.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: METHOD_ARN }]);
    expect(out.context).toMatchObject(authorizerContext(key));
    expect(out.context).not.toHaveProperty('via_cloudfront');
  });

  it('makes the same decision as authorizeKey for every case', async () => {
    const { handler, keys } = setup({ keyCacheTtlMs: 0 });
    const cases: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer tally_unknown' },
      { Authorization: 'Basic abc' },
      { Authorization: `Bearer ${PLAIN}` },
      { Authorization: `Bearer ${WEB}`, Origin: 'https://app.example.com' },
      { Authorization: `Bearer ${WEB}`, Origin: 'https://evil.example' },
      { Authorization: `Bearer ${WEB}` },
      { Authorization: `Bearer ${MOBILE}` },
      { Authorization: `Bearer ${MOBILE}`, 'X-Tally-Bundle-ID': 'com.acme.app' },
    ];
    for (const headers of cases) {
      const expected = await authorizeKey(keys, {
        key: headers.Authorization?.slice('Bearer '.length),
        origin: headers.Origin,
        bundleId: headers['X-Tally-Bundle-ID'],
      });
      const out = await handler(event(headers));
      const effect = out.policyDocument.Statement[0] as { Effect: string };
      if (expected.allow) {
        expect(effect.Effect, JSON.stringify(headers)).toBe('Allow');
        expect(out.usageIdentifierKey).toBe(expected.key.key_hash);
      } else if (expected.status === 401) {
        // Allowed through to the API-key check with an identifier that is no API key: INVALID_API_KEY (401).
        expect(effect.Effect, JSON.stringify(headers)).toBe('Allow');
        expect(out.usageIdentifierKey).toBe(INVALID_KEY_USAGE_IDENTIFIER);
        expect(out.context).not.toHaveProperty('project_id');
      } else {
        expect(effect.Effect, JSON.stringify(headers)).toBe('Deny');
        expect(out.usageIdentifierKey).toBeUndefined();
        expect(out.context?.[GATEWAY_CONTEXT.error]).toBe(expected.error);
      }
    }
  });

  it('takes the key from X-Tally-Key or X-MGM-Key only where Authorization is absent', async () => {
    const { handler } = setup({ keyCacheTtlMs: 0 });
    const allowedWith = async (headers: Record<string, string>) => {
      const out = await handler(event(headers));
      return out.usageIdentifierKey === record(PLAIN).key_hash;
    };
    expect(await allowedWith({ 'X-MGM-Key': PLAIN })).toBe(true);
    expect(await allowedWith({ 'x-tally-key': PLAIN })).toBe(true);
    expect(await allowedWith({ 'X-Tally-Key': PLAIN, 'X-MGM-Key': 'tally_wrong' })).toBe(true);
    expect(await allowedWith({ 'X-Tally-Key': 'tally_wrong', 'X-MGM-Key': PLAIN })).toBe(false);
    // A present Authorization decides alone, even when it is not a usable bearer token.
    expect(await allowedWith({ Authorization: 'Basic abc', 'X-MGM-Key': PLAIN })).toBe(false);
    expect(await allowedWith({ Authorization: 'Bearer tally_wrong', 'X-MGM-Key': PLAIN })).toBe(false);
  });

  it('reads the bundle ID under both prefixes, X-Tally- first', async () => {
    const { handler } = setup({ keyCacheTtlMs: 0 });
    const effect = async (headers: Record<string, string>) =>
      ((await handler(event({ Authorization: `Bearer ${MOBILE}`, ...headers }))).policyDocument.Statement[0] as { Effect: string }).Effect;
    expect(await effect({ 'X-MGM-Bundle-Id': 'com.acme.app' })).toBe('Allow');
    expect(await effect({ 'x-mgm-bundle-id': 'com.acme.app' })).toBe('Allow');
    expect(await effect({ 'X-MGM-Bundle-Id': 'com.other' })).toBe('Deny');
    expect(await effect({ 'X-Tally-Bundle-ID': 'com.other', 'X-MGM-Bundle-Id': 'com.acme.app' })).toBe('Deny');
    expect(await effect({ 'X-Tally-Bundle-ID': 'com.acme.app', 'X-MGM-Bundle-Id': 'com.other' })).toBe('Allow');
  });

  it('reads headers case-insensitively', async () => {
    const { handler } = setup();
    const out = await handler(event({ authorization: `bearer ${WEB}`, origin: 'https://evil.example' }));
    expect(out.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(out.context?.[GATEWAY_CONTEXT.error]).toBe(ORIGIN_NOT_ALLOWED_ERROR);
  });

  it('never uses a value that could be an API key as the invalid-key identifier', () => {
    // Registered API key values are key hashes: 64 hex digits.
    expect(INVALID_KEY_USAGE_IDENTIFIER).not.toMatch(/^[0-9a-f]{64}$/);
    expect(INVALID_KEY_ERROR).toBe('Invalid or missing API key');
  });

  it('gives the context fragments of the path surface', async () => {
    const { handler } = setup();
    const v1 = await handler(event({}, '/v1/events'));
    const api = await handler(event({}, '/api/events'));
    expect(v1.context?.[GATEWAY_CONTEXT.errorSuffix]).toBe('');
    expect(api.context?.[GATEWAY_CONTEXT.errorSuffix]).toBe(',"success":false');
    const denied = await handler(event({ Authorization: `Bearer ${MOBILE}` }, '/api/events'));
    expect(denied.context?.[GATEWAY_CONTEXT.error]).toBe(BUNDLE_ID_REQUIRED_ERROR);
  });
});

describe('authorizer caching', () => {
  it('caches key records, not decisions: Origin is checked on every request', async () => {
    const { handler, keys } = setup();
    const allowed = await handler(event({ Authorization: `Bearer ${WEB}`, Origin: 'https://app.example.com' }));
    const denied = await handler(event({ Authorization: `Bearer ${WEB}`, Origin: 'https://evil.example' }));
    const noOrigin = await handler(event({ Authorization: `Bearer ${WEB}` }));
    const allowedAgain = await handler(event({ Authorization: `Bearer ${WEB}`, Origin: 'https://app.example.com' }));
    expect(allowed.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(denied.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(noOrigin.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(allowedAgain.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(keys.lookups).toBe(1);
  });

  it('looks a key up again after the TTL, and caches absent keys too', async () => {
    const { handler, keys, advance } = setup();
    await handler(event({ Authorization: `Bearer ${PLAIN}` }));
    await handler(event({ Authorization: 'Bearer tally_nope' }));
    await handler(event({ Authorization: 'Bearer tally_nope' }));
    expect(keys.lookups).toBe(2);
    advance(60_001);
    await handler(event({ Authorization: `Bearer ${PLAIN}` }));
    expect(keys.lookups).toBe(3);
  });

  it('forgets a key revoked through the caching store and bounds its size', async () => {
    const inner = new FakeKeys([record(PLAIN)]);
    const cache = new CachingKeyStore(inner, 60_000, () => 0, 2);
    expect(await cache.findByHash(hashApiKey(PLAIN))).toBeDefined();
    await cache.revoke('proj-1', `key-${PLAIN}`);
    expect(await cache.findByHash(hashApiKey(PLAIN))).toBeUndefined();
    for (const k of ['a', 'b', 'c']) await cache.findByHash(k);
    inner.lookups = 0;
    await cache.findByHash('a'); // evicted (oldest)
    await cache.findByHash('c'); // still cached
    expect(inner.lookups).toBe(1);
  });
});

describe('CloudFront origin secret', () => {
  const originSecret = async () => 'the-origin-secret';

  it('sets via_cloudfront only when the header matches the secret', async () => {
    const { handler } = setup({ originSecret });
    const ok = await handler(event({ Authorization: `Bearer ${PLAIN}`, [ORIGIN_VERIFY_HEADER]: 'the-origin-secret' }));
    const forged = await handler(event({ Authorization: `Bearer ${PLAIN}`, [ORIGIN_VERIFY_HEADER]: 'guess' }));
    const direct = await handler(event({ Authorization: `Bearer ${PLAIN}` }));
    expect(ok.context?.via_cloudfront).toBe('1');
    expect(forged.context).not.toHaveProperty('via_cloudfront');
    expect(direct.context).not.toHaveProperty('via_cloudfront');
  });

  it('never sets it without CloudFront configured, and survives a failing secret read', async () => {
    const plain = setup();
    const out = await plain.handler(event({ Authorization: `Bearer ${PLAIN}`, [ORIGIN_VERIFY_HEADER]: 'x' }));
    expect(out.context).not.toHaveProperty('via_cloudfront');
    const failing = setup({ originSecret: async () => Promise.reject(new Error('AccessDenied')) });
    const still = await failing.handler(event({ Authorization: `Bearer ${PLAIN}`, [ORIGIN_VERIFY_HEADER]: 'x' }));
    expect(still.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(still.context).not.toHaveProperty('via_cloudfront');
  });
});
