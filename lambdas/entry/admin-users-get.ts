import { createUsersGetHandler } from '../handlers/users';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-users-get', createUsersGetHandler, { ...adminSignIn });
