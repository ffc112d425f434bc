import { createKeysDeleteHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';
import { apiGatewayRateLimits } from './rate-limits';

export const handler = lambdaHandler('admin-keys-delete', createKeysDeleteHandler, { rateLimits: apiGatewayRateLimits, ...adminSignIn });
