import { createUsersGetHandler } from '../handlers/users';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-users-get', createUsersGetHandler);
