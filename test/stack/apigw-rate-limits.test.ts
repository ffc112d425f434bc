/** The rate-limit registry on API Gateway, against a mocked API Gateway client. */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  NotFoundException,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey, type ApiKeyRecord } from '../../lambdas/domain/api-key';
import { ApiGatewayRateLimits, rateLimitsFromEnv } from '../../lambdas/adapters/apigw-rate-limits';
import { throttleFor } from '../../lambdas/contract/usage-plans';

const config = { restApiId: 'api123', stage: 'prod', planPrefix: 'Tally-' };
const stage = [{ apiId: 'api123', stage: 'prod' }];
const apigw = mockClient(APIGatewayClient);

function key(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key-1',
    project_id: 'proj-1',
    key_hash: hashApiKey('tally_secret'),
    key_prefix: 'tally_secret',
    plan: 'free',
    rate_limit_per_minute: 100,
    allowed_origins: [],
    allowed_bundle_ids: [],
    created_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const registry = () => new ApiGatewayRateLimits(new APIGatewayClient({ region: 'eu-west-1' }), config);

beforeEach(() => {
  apigw.reset();
  apigw.on(GetUsagePlansCommand).resolves({
    items: [
      // Same name, other API: must not be used.
      { id: 'other-free', name: 'Tally-free', apiStages: [{ apiId: 'other', stage: 'prod' }] },
      { id: 'plan-free', name: 'Tally-free', apiStages: stage },
      { id: 'plan-pro', name: 'Tally-pro', apiStages: stage },
    ],
  });
  apigw.on(CreateApiKeyCommand).resolves({ id: 'apikey-1' });
  apigw.on(CreateUsagePlanKeyCommand).resolves({});
});

describe('register', () => {
  it('creates an API key valued with the key hash, named with the key id, on the plan usage plan', async () => {
    await registry().register(key({ plan: 'pro', rate_limit_per_minute: 1000 }));
    expect(apigw.commandCalls(CreateApiKeyCommand)[0]!.args[0].input).toMatchObject({
      name: 'key-1',
      value: hashApiKey('tally_secret'),
      enabled: true,
    });
    expect(apigw.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({
      usagePlanId: 'plan-pro',
      keyId: 'apikey-1',
      keyType: 'API_KEY',
    });
    expect(apigw.commandCalls(CreateUsagePlanCommand)).toHaveLength(0);
  });

  it('looks the shared plans up once per instance', async () => {
    const r = registry();
    await r.register(key());
    await r.register(key({ id: 'key-2' }));
    expect(apigw.commandCalls(GetUsagePlansCommand)).toHaveLength(1);
    expect(apigw.commandCalls(CreateUsagePlanKeyCommand).map((c) => c.args[0].input.usagePlanId)).toEqual(['plan-free', 'plan-free']);
  });

  it('gives an enterprise key its own usage plan with its limit, bound to the stage', async () => {
    apigw.on(CreateUsagePlanCommand).resolves({ id: 'plan-ent' });
    await registry().register(key({ plan: 'enterprise', rate_limit_per_minute: 12_000 }));
    expect(apigw.commandCalls(CreateUsagePlanCommand)[0]!.args[0].input).toMatchObject({
      name: 'Tally-enterprise-key-1',
      apiStages: stage,
      throttle: { rateLimit: 200, burstLimit: 12_000 },
    });
    expect(apigw.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input.usagePlanId).toBe('plan-ent');
  });

  it('mirrors the local token bucket: burst = limit, refill = limit/60 per second', () => {
    expect(throttleFor(100)).toEqual({ rateLimit: 100 / 60, burstLimit: 100 });
    expect(throttleFor(1000)).toEqual({ rateLimit: 1000 / 60, burstLimit: 1000 });
  });

  it('rolls back the API key and enterprise plan when attaching fails', async () => {
    apigw.on(CreateUsagePlanCommand).resolves({ id: 'plan-ent' });
    apigw.on(CreateUsagePlanKeyCommand).rejects(new Error('TooManyRequests'));
    apigw.on(DeleteApiKeyCommand).resolves({});
    apigw.on(UpdateUsagePlanCommand).resolves({});
    apigw.on(DeleteUsagePlanCommand).resolves({});
    await expect(registry().register(key({ plan: 'enterprise', rate_limit_per_minute: 5000 }))).rejects.toThrow('TooManyRequests');
    expect(apigw.commandCalls(DeleteApiKeyCommand)[0]!.args[0].input).toEqual({ apiKey: 'apikey-1' });
    expect(apigw.commandCalls(DeleteUsagePlanCommand)[0]!.args[0].input).toEqual({ usagePlanId: 'plan-ent' });
  });

  it('fails clearly when the shared plan is missing', async () => {
    apigw.on(GetUsagePlansCommand).resolves({ items: [] });
    await expect(registry().register(key())).rejects.toThrow(/Tally-free/);
    expect(apigw.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
  });
});

describe('unregister', () => {
  it('deletes the API key found by exact name', async () => {
    apigw.on(GetApiKeysCommand).resolves({
      items: [
        { id: 'apikey-10', name: 'key-10' },
        { id: 'apikey-1', name: 'key-1' },
      ],
    });
    apigw.on(DeleteApiKeyCommand).resolves({});
    await registry().unregister(key());
    expect(apigw.commandCalls(GetApiKeysCommand)[0]!.args[0].input).toMatchObject({ nameQuery: 'key-1' });
    expect(apigw.commandCalls(DeleteApiKeyCommand).map((c) => c.args[0].input)).toEqual([{ apiKey: 'apikey-1' }]);
    expect(apigw.commandCalls(DeleteUsagePlanCommand)).toHaveLength(0);
  });

  it('removes an enterprise key plan: unbinds the stage, then deletes it', async () => {
    apigw.on(GetApiKeysCommand).resolves({ items: [{ id: 'apikey-1', name: 'key-1' }] });
    apigw.on(GetUsagePlansCommand).resolves({ items: [{ id: 'plan-ent', name: 'Tally-enterprise-key-1', apiStages: stage }] });
    apigw.on(DeleteApiKeyCommand).resolves({});
    apigw.on(UpdateUsagePlanCommand).resolves({});
    apigw.on(DeleteUsagePlanCommand).resolves({});
    await registry().unregister(key({ plan: 'enterprise', rate_limit_per_minute: 5000 }));
    expect(apigw.commandCalls(UpdateUsagePlanCommand)[0]!.args[0].input).toEqual({
      usagePlanId: 'plan-ent',
      patchOperations: [{ op: 'remove', path: '/apiStages', value: 'api123:prod' }],
    });
    expect(apigw.commandCalls(DeleteUsagePlanCommand)[0]!.args[0].input).toEqual({ usagePlanId: 'plan-ent' });
  });

  it('is idempotent: already-deleted keys and plans are fine', async () => {
    apigw.on(GetApiKeysCommand).resolves({ items: [{ id: 'apikey-1', name: 'key-1' }] });
    apigw.on(DeleteApiKeyCommand).rejects(new NotFoundException({ message: 'gone', $metadata: {} }));
    await expect(registry().unregister(key())).resolves.toBeUndefined();
    apigw.on(GetApiKeysCommand).resolves({ items: [] });
    await expect(registry().unregister(key())).resolves.toBeUndefined();
  });
});

describe('rateLimitsFromEnv', () => {
  it('names the missing variables', () => {
    expect(() => rateLimitsFromEnv({ RATE_LIMIT_STAGE: 'prod' })).toThrow(/RATE_LIMIT_REST_API_ID.*RATE_LIMIT_PLAN_PREFIX/);
  });

  it('builds the registry from the variables the stack sets', () => {
    const env = { RATE_LIMIT_REST_API_ID: 'api123', RATE_LIMIT_STAGE: 'prod', RATE_LIMIT_PLAN_PREFIX: 'Tally-' };
    expect(rateLimitsFromEnv(env, new APIGatewayClient({ region: 'eu-west-1' }))).toBeInstanceOf(ApiGatewayRateLimits);
  });
});
