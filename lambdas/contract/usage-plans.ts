/**
 * How keys map to API Gateway usage plans: names, throttles and the environment the stack sets for the
 * registry (adapters/apigw-rate-limits.ts). Plain data, shared with the CDK app (lib/).
 */
import type { Plan } from '../domain/api-key';

export interface ApiGatewayRateLimitsConfig {
  restApiId: string;
  stage: string;
  /** Usage plan names start with this: <prefix>free, <prefix>pro, <prefix>enterprise-<key id>. */
  planPrefix: string;
}

/** Environment variables the stack sets on functions that wire this registry. */
export const RATE_LIMIT_ENV = {
  restApiId: 'RATE_LIMIT_REST_API_ID',
  stage: 'RATE_LIMIT_STAGE',
  planPrefix: 'RATE_LIMIT_PLAN_PREFIX',
} as const satisfies Record<keyof ApiGatewayRateLimitsConfig, string>;

export const usagePlanName = (prefix: string, plan: Exclude<Plan, 'enterprise'>) => `${prefix}${plan}`;
export const enterprisePlanName = (prefix: string, keyId: string) => `${prefix}enterprise-${keyId}`;

/** Usage plan throttle for a per-minute limit: the same token bucket as the local server. */
export function throttleFor(limitPerMinute: number): { rateLimit: number; burstLimit: number } {
  return { rateLimit: limitPerMinute / 60, burstLimit: limitPerMinute };
}
