import { createProjectsListHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-projects-list', createProjectsListHandler, { adminToken: secretsManagerAdminToken });
