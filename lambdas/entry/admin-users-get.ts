import { createUsersGetHandler } from '../handlers/users';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-users-get', createUsersGetHandler, { ...adminWiring });
