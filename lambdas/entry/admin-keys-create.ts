import { createKeysCreateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';
import { apiGatewayRateLimits } from './rate-limits';

export const handler = lambdaHandler('admin-keys-create', createKeysCreateHandler, { rateLimits: apiGatewayRateLimits, ...adminSignIn });
