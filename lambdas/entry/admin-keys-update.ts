import { createKeysUpdateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-keys-update', createKeysUpdateHandler, { adminToken: secretsManagerAdminToken });
