import { createKeysCreateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';
import { apiGatewayRateLimits } from './rate-limits';

export const handler = lambdaHandler('admin-keys-create', createKeysCreateHandler, { rateLimits: apiGatewayRateLimits, adminToken: secretsManagerAdminToken });
