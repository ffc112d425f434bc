import { createUsersGetHandler } from '../handlers/users';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-users-get', createUsersGetHandler, { adminToken: secretsManagerAdminToken });
