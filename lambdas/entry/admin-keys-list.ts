import { createKeysListHandler } from '../handlers/keys';
import { NO_RATE_LIMIT_REGISTRY } from '../adapters/no-rate-limit-registry';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

// Listing keys registers none: the handler's rate-limit registry is never called here.
export const handler = lambdaHandler('admin-keys-list', (deps) => createKeysListHandler({ ...deps, rateLimits: NO_RATE_LIMIT_REGISTRY }), {
  ...adminWiring,
});
