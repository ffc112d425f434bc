import { createUsersListHandler } from '../handlers/users';
import { lambdaHandler } from './aws';
import { athenaRecentUsers } from './athena';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-users-list', createUsersListHandler, { recentUsers: athenaRecentUsers, ...adminSignIn });
