import type { ApiKeyRecord } from '../domain/api-key';

/**
 * Makes a key known to the rate limiter. On AWS: an API Gateway API key (its value is the key's hash,
 * which the authorizer returns as the usage identifier) attached to the usage plan of the key's plan.
 * Locally nothing (adapters/no-rate-limit-registry.ts): the local server reads the limit from the key
 * record itself.
 */
export interface RateLimitRegistry {
  register(key: ApiKeyRecord): Promise<void>;
  unregister(key: ApiKeyRecord): Promise<void>;
}
