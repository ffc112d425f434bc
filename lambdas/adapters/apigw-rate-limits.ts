/**
 * RateLimitRegistry on API Gateway usage plans. Each project key becomes an API Gateway API key whose
 * value is the key's hash (the usage identifier the authorizer returns) and whose name is the key ID,
 * attached to the usage plan of the key's plan:
 *  - free and pro keys share the stack's two plans (found by name: their IDs cannot be passed in,
 *    since the plans depend on the stage, which depends on these functions);
 *  - an enterprise key gets a usage plan of its own with its own limit, created here and deleted
 *    with the key. Simple and race-free (no plan is ever shared between keys); the price is one usage
 *    plan per enterprise key against the regional quota of 300 plans (adjustable).
 * Throttles mirror the local token bucket (lambdas/domain/rate-limit.ts): rate = limit/60 per second,
 * burst = limit.
 */
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
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import * as z from 'zod';
import type { ApiKeyRecord } from '../domain/api-key';
import type { RateLimitRegistry } from '../ports';
import { enterprisePlanName, RATE_LIMIT_ENV, throttleFor, usagePlanName, type ApiGatewayRateLimitsConfig } from '../contract/usage-plans';

export class ApiGatewayRateLimits implements RateLimitRegistry {
  private readonly planIds = new Map<string, string>();

  constructor(
    private readonly apigw: APIGatewayClient,
    private readonly config: ApiGatewayRateLimitsConfig,
  ) {}

  async register(key: ApiKeyRecord): Promise<void> {
    const enterprise = key.plan === 'enterprise';
    const planId = enterprise ? await this.createEnterprisePlan(key) : await this.sharedPlanId(key.plan as 'free' | 'pro');
    let apiKeyId: string | undefined;
    try {
      const created = await this.apigw.send(
        new CreateApiKeyCommand({
          name: key.id,
          value: key.key_hash,
          enabled: true,
          description: `Tally ${key.plan} key of project ${key.project_id}`,
        }),
      );
      apiKeyId = created.id;
      await this.apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId: planId, keyId: apiKeyId, keyType: 'API_KEY' }));
    } catch (err) {
      // Leave nothing half-registered: the caller reports the error and the key is not created.
      if (apiKeyId) await ignoreNotFound(this.apigw.send(new DeleteApiKeyCommand({ apiKey: apiKeyId }))).catch(() => undefined);
      if (enterprise) await this.deletePlan(planId).catch(() => undefined);
      throw err;
    }
  }

  async unregister(key: ApiKeyRecord): Promise<void> {
    const apiKey = await this.findApiKey(key.id);
    // Deleting an API key also removes it from its usage plans.
    if (apiKey) await ignoreNotFound(this.apigw.send(new DeleteApiKeyCommand({ apiKey })));
    if (key.plan === 'enterprise') {
      const plan = await this.findPlan(enterprisePlanName(this.config.planPrefix, key.id));
      if (plan?.id) await this.deletePlan(plan.id);
    }
  }

  private async createEnterprisePlan(key: ApiKeyRecord): Promise<string> {
    const out = await this.apigw.send(
      new CreateUsagePlanCommand({
        name: enterprisePlanName(this.config.planPrefix, key.id),
        description: `Tally enterprise key ${key.id} of project ${key.project_id}: ${key.rate_limit_per_minute} requests per minute`,
        apiStages: [{ apiId: this.config.restApiId, stage: this.config.stage }],
        throttle: throttleFor(key.rate_limit_per_minute),
      }),
    );
    if (!out.id) throw new Error('CreateUsagePlan returned no id');
    return out.id;
  }

  /** A usage plan still bound to a stage cannot be deleted: unbind it first. */
  private async deletePlan(usagePlanId: string): Promise<void> {
    await ignoreNotFound(
      this.apigw.send(
        new UpdateUsagePlanCommand({
          usagePlanId,
          patchOperations: [{ op: 'remove', path: '/apiStages', value: `${this.config.restApiId}:${this.config.stage}` }],
        }),
      ),
    );
    await ignoreNotFound(this.apigw.send(new DeleteUsagePlanCommand({ usagePlanId })));
  }

  private async sharedPlanId(plan: 'free' | 'pro'): Promise<string> {
    const name = usagePlanName(this.config.planPrefix, plan);
    const cached = this.planIds.get(name);
    if (cached) return cached;
    const found = await this.findPlan(name);
    if (!found?.id) throw new Error(`Usage plan ${name} bound to ${this.config.restApiId}/${this.config.stage} not found`);
    this.planIds.set(name, found.id);
    return found.id;
  }

  /** The plan of that name bound to this API's stage (names alone are not unique in an account). */
  private async findPlan(name: string): Promise<UsagePlan | undefined> {
    let position: string | undefined;
    do {
      const page = await this.apigw.send(new GetUsagePlansCommand({ limit: 500, position }));
      const match = page.items?.find(
        (p) => p.name === name && (p.apiStages ?? []).some((s) => s.apiId === this.config.restApiId && s.stage === this.config.stage),
      );
      if (match) return match;
      position = page.position;
    } while (position);
    return undefined;
  }

  private async findApiKey(name: string): Promise<string | undefined> {
    let position: string | undefined;
    do {
      const page = await this.apigw.send(new GetApiKeysCommand({ nameQuery: name, limit: 500, position }));
      const match = page.items?.find((k) => k.name === name);
      if (match?.id) return match.id;
      position = page.position;
    } while (position);
    return undefined;
  }
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof NotFoundException)) throw err;
  }
}

/** The registry from the environment the stack sets; missing variables fail the cold start by name. */
export function rateLimitsFromEnv(source: NodeJS.ProcessEnv = process.env, client = new APIGatewayClient({})): ApiGatewayRateLimits {
  const parsed = z
    .object({
      [RATE_LIMIT_ENV.restApiId]: z.string().min(1),
      [RATE_LIMIT_ENV.stage]: z.string().min(1),
      [RATE_LIMIT_ENV.planPrefix]: z.string().min(1),
    })
    .safeParse(source);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    throw new Error(`Invalid or missing environment variables: ${missing}`);
  }
  return new ApiGatewayRateLimits(client, {
    restApiId: parsed.data[RATE_LIMIT_ENV.restApiId]!,
    stage: parsed.data[RATE_LIMIT_ENV.stage]!,
    planPrefix: parsed.data[RATE_LIMIT_ENV.planPrefix]!,
  });
}
