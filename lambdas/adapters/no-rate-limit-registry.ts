/** The rate-limit registry of the local server: nothing to register, the server reads the key record. */
import type { RateLimitRegistry } from '../ports/rate-limit-registry';

export const NO_RATE_LIMIT_REGISTRY: RateLimitRegistry = {
  register: async () => undefined,
  unregister: async () => undefined,
};
