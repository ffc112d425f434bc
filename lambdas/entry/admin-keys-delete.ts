import { createKeysDeleteHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';
import { apiGatewayRateLimits } from './rate-limits';

export const handler = lambdaHandler('admin-keys-delete', createKeysDeleteHandler, { rateLimits: apiGatewayRateLimits, ...adminWiring });
