import { createUsersListHandler } from '../handlers/users';
import { lambdaHandler } from './aws';
import { athenaRecentUsers } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-users-list', createUsersListHandler, { recentUsers: athenaRecentUsers, ...adminWiring });
